/**
 * Webhook destinations (SSRF): only addresses the operator allowed, checked on every address a
 * name resolves to, with every special-purpose range and its IPv6 disguises refused by `public`.
 */
import { describe, expect, test } from 'bun:test';
import { checkWebhookUrl, DestinationRefused, isAllowedAddress, isPublicAddress, type NetworkPolicy, parseNetworkPolicy, resolveDestination } from './destination.ts';

const policy = (text: string) => parseNetworkPolicy(text) as NetworkPolicy;

describe('the public policy', () => {
  test.each([
    '127.0.0.1', '127.9.9.9', '10.0.0.1', '172.16.5.5', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '255.255.255.255',
    '224.0.0.1', '198.18.0.1', '192.0.2.1', '::', '::1', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '2001:db8::1',
    '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '64:ff9b::7f00:1', '64:ff9b::a9fe:a9fe', '2002:7f00:1::', '2001:0:1:2::',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
    expect(isAllowedAddress(address, policy('public'))).toBe(false);
  });

  test.each(['8.8.8.8', '1.1.1.1', '151.101.1.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(isAllowedAddress(address, policy('public'))).toBe(true);
  });

  test('anything that is not an address is refused', () => {
    expect(isAllowedAddress('localhost', policy('public'))).toBe(false);
    expect(isAllowedAddress('', policy('public'))).toBe(false);
  });
});

describe('operator policies', () => {
  test('a listed range allows exactly that range (its IPv4-mapped form too); none allows nothing', () => {
    const internal = policy('10.20.0.0/16,fd00::/8');
    expect(isAllowedAddress('10.20.3.4', internal)).toBe(true);
    expect(isAllowedAddress('::ffff:10.20.3.4', internal)).toBe(true);
    expect(isAllowedAddress('10.21.0.1', internal)).toBe(false);
    expect(isAllowedAddress('fd01::1', internal)).toBe(true);
    expect(isAllowedAddress('8.8.8.8', internal)).toBe(false);
    expect(isAllowedAddress('8.8.8.8', policy('none'))).toBe(false);
  });

  test.each(['10.0.0.0/33', 'publik', '300.1.1.1/8', '10.0.0.0/x', 'fd00::/129'])('refuses the policy text %p', (text) => {
    expect(typeof parseNetworkPolicy(text)).toBe('string');
  });
});

describe('resolving a destination', () => {
  const lookupOf = (answers: Record<string, string[]>) => async (host: string) => (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  test('a name resolving to a private address is refused, even when another of its addresses is public', async () => {
    const lookup = lookupOf({ 'rebind.example': ['93.184.216.34', '127.0.0.1'] });
    await expect(resolveDestination(new URL('https://rebind.example/hook'), policy('public'), lookup)).rejects.toBeInstanceOf(DestinationRefused);
  });

  test('the checked address is the one to connect to', async () => {
    const lookup = lookupOf({ 'hooks.example': ['93.184.216.34'] });
    expect(await resolveDestination(new URL('https://hooks.example/x'), policy('public'), lookup)).toEqual({ address: '93.184.216.34', family: 4 });
  });

  test('literal addresses are checked without a lookup, brackets and all', async () => {
    const lookup = async () => {
      throw new Error('no lookup for literals');
    };
    await expect(resolveDestination(new URL('http://[::1]:8080/'), policy('public'), lookup)).rejects.toThrow('outside the networks');
    await expect(resolveDestination(new URL('http://169.254.169.254/latest/meta-data'), policy('public'), lookup)).rejects.toThrow('outside the networks');
    expect(await resolveDestination(new URL('http://[::1]:8080/'), policy('::1/128'), lookup)).toEqual({ address: '::1', family: 6 });
  });

  test('a name that does not resolve is refused with its reason', async () => {
    const lookup = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    await expect(resolveDestination(new URL('https://missing.example/'), policy('public'), lookup)).rejects.toThrow('ENOTFOUND');
  });

  test.each(['ftp://example.com/', 'https://user:pass@example.com/', 'https://example.com/#x', 'not a url', 'file:///etc/passwd'])('refuses the URL %p', (url) => {
    expect(() => checkWebhookUrl(url)).toThrow(DestinationRefused);
  });
});
