import { describe, expect, test } from 'bun:test';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { namedBits, objectIdentifier, readTlv, sequence, smallInteger, time, tlv, unsignedInteger } from './der.ts';
import { generateSigningKey, issueCertificate, permittedNames } from './x509.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const NOW = new Date('2030-01-01T00:00:00Z');
const later = (days: number) => new Date(NOW.getTime() + days * 86_400_000);

/** Root -> server CA -> leaf, as the organization CA issues them. */
function chain() {
  const rootKey = generateSigningKey();
  const root = new X509Certificate(
    issueCertificate({ subject: { commonName: 'Acme Root CA', organization: 'Acme' }, publicKey: rootKey.publicKey, notBefore: NOW, notAfter: later(3650), ca: { pathLength: 1 }, signer: { privateKey: rootKey.privateKey } }),
  );
  const serverKey = generateSigningKey();
  const server = new X509Certificate(
    issueCertificate({ subject: { commonName: 'Acme h1 CA', organization: 'Acme' }, publicKey: serverKey.publicKey, notBefore: NOW, notAfter: later(90), ca: { pathLength: 0 }, signer: { privateKey: rootKey.privateKey, certificate: root } }),
  );
  const leafKey = generateSigningKey();
  const leaf = new X509Certificate(
    issueCertificate({ subject: { commonName: 'app.example.test' }, publicKey: leafKey.publicKey, notBefore: NOW, notAfter: later(1), dnsNames: ['app.example.test', '*.example.test'], signer: { privateKey: serverKey.privateKey, certificate: server } }),
  );
  return { root, server, leaf, rootKey, serverKey, leafKey };
}

describe('DER', () => {
  test('lengths in short and long form', () => {
    expect(hex(tlv(0x04, Buffer.alloc(3)))).toBe('0403000000');
    expect(hex(tlv(0x04, Buffer.alloc(200)).subarray(0, 3))).toBe('0481c8');
    expect(hex(tlv(0x04, Buffer.alloc(300)).subarray(0, 4))).toBe('0482012c');
    const long = tlv(0x04, Buffer.alloc(70_000, 1));
    expect(readTlv(long).content.length).toBe(70_000);
  });

  test('integers are minimal and positive', () => {
    expect(hex(smallInteger(0))).toBe('020100');
    expect(hex(smallInteger(2))).toBe('020102');
    expect(hex(smallInteger(128))).toBe('02020080');
    expect(hex(unsignedInteger(Buffer.from([0, 0, 0xff])))).toBe('020200ff');
  });

  test('object identifiers', () => {
    expect(hex(objectIdentifier('1.2.840.113549'))).toBe('06062a864886f70d');
    expect(hex(objectIdentifier('2.5.29.19'))).toBe('0603551d13');
    expect(() => objectIdentifier('1')).toThrow();
  });

  test('named bits drop trailing zeros', () => {
    expect(hex(namedBits([0]))).toBe('03020780');
    expect(hex(namedBits([0, 5, 6]))).toBe('03020186');
  });

  test('UTCTime until 2049, GeneralizedTime from 2050', () => {
    expect(time(new Date('2049-12-31T23:59:59Z')).toString('latin1', 2)).toBe('491231235959Z');
    expect(time(new Date('2050-01-01T00:00:00Z'))[0]).toBe(0x18);
    expect(time(new Date('2050-01-01T00:00:00Z')).toString('latin1', 2)).toBe('20500101000000Z');
  });

  test('a truncated TLV is refused', () => {
    expect(() => readTlv(Buffer.from([0x30, 0x05, 0x00]))).toThrow(RangeError);
    expect(() => readTlv(sequence().subarray(0, 1))).toThrow(RangeError);
  });
});

describe('issueCertificate', () => {
  test('a root, a server CA and a leaf chain to each other and say what they are', () => {
    const { root, server, leaf, serverKey } = chain();
    expect(root.ca).toBe(true);
    expect(root.checkIssued(root)).toBe(true);
    expect(root.verify(root.publicKey)).toBe(true);
    expect(root.subject).toBe('O=Acme\nCN=Acme Root CA');

    expect(server.ca).toBe(true);
    expect(server.issuer).toBe(root.subject);
    expect(server.checkIssued(root)).toBe(true);
    expect(server.verify(root.publicKey)).toBe(true);
    expect(server.checkPrivateKey(serverKey.privateKey)).toBe(true);
    expect(new Date(server.validTo).getTime()).toBe(later(90).getTime());

    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(server)).toBe(true);
    expect(leaf.verify(server.publicKey)).toBe(true);
    expect(leaf.verify(root.publicKey)).toBe(false);
    expect(leaf.subjectAltName).toBe('DNS:app.example.test, DNS:*.example.test');
    expect(leaf.checkHost('app.example.test')).toBe('app.example.test');
    expect(leaf.serialNumber).not.toBe(server.serialNumber);
  });

  test('OpenSSL verifies the chain and enforces the CA constraints', async () => {
    const { root, server, leaf, serverKey } = chain();
    // pathlen 0: a CA the server CA signs is not a valid issuer.
    const subKey = generateSigningKey();
    const sub = new X509Certificate(
      issueCertificate({ subject: { commonName: 'rogue CA' }, publicKey: subKey.publicKey, notBefore: NOW, notAfter: later(9), ca: { pathLength: 0 }, signer: { privateKey: serverKey.privateKey, certificate: server } }),
    );
    const rogueKey = generateSigningKey();
    const rogue = issueCertificate({ subject: { commonName: 'x.example.test' }, publicKey: rogueKey.publicKey, notBefore: NOW, notAfter: later(1), dnsNames: ['x.example.test'], signer: { privateKey: subKey.privateKey, certificate: sub } });
    const dir = mkdtempSync(join(tmpdir(), 'panel-x509-'));
    try {
      writeFileSync(join(dir, 'root.pem'), root.toString());
      writeFileSync(join(dir, 'server.pem'), server.toString());
      writeFileSync(join(dir, 'leaf.pem'), leaf.toString());
      writeFileSync(join(dir, 'middle.pem'), server.toString() + sub.toString());
      writeFileSync(join(dir, 'rogue.pem'), rogue);
      const openssl = async (...args: string[]) => {
        const child = Bun.spawn(['openssl', ...args], { stdout: 'pipe', stderr: 'pipe' });
        const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
        return { code: await child.exited, stdout, stderr };
      };
      const at = String(Math.floor(later(0.5).getTime() / 1000));
      const verified = await openssl('verify', '-attime', at, '-CAfile', join(dir, 'root.pem'), '-untrusted', join(dir, 'server.pem'), '-purpose', 'sslserver', join(dir, 'leaf.pem'));
      expect(verified.stdout + verified.stderr).toContain(': OK');
      expect(verified.code).toBe(0);
      const text = await openssl('x509', '-in', join(dir, 'server.pem'), '-noout', '-text');
      expect(text.stdout).toContain('CA:TRUE, pathlen:0');
      expect(text.stdout).toContain('Certificate Sign, CRL Sign');
      expect(text.stdout).toContain('X509v3 Authority Key Identifier');
      const refused = await openssl('verify', '-attime', at, '-CAfile', join(dir, 'root.pem'), '-untrusted', join(dir, 'middle.pem'), join(dir, 'rogue.pem'));
      expect(refused.stdout + refused.stderr).toContain('path length constraint exceeded');
      expect(refused.code).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a name-constrained server CA: OpenSSL verifies the names it permits (and their subdomains) and refuses any other', async () => {
    const { root, rootKey } = chain();
    const serverKey = generateSigningKey();
    const constrained = issueCertificate({
      subject: { commonName: 'Acme h1 CA' },
      publicKey: serverKey.publicKey,
      notBefore: NOW,
      notAfter: later(90),
      ca: { pathLength: 0, permitted: { dns: ['shop.example.test', 'example.org'], ipv4: [] } },
      signer: { privateKey: rootKey.privateKey, certificate: root },
    });
    expect(permittedNames(new X509Certificate(constrained))).toEqual({ dns: ['shop.example.test', 'example.org'], ipv4: [] });
    expect(permittedNames(root)).toBeNull();
    const leaf = (names: string[], ipAddresses?: string[]) => {
      const key = generateSigningKey();
      return issueCertificate({ subject: { commonName: names[0]! }, publicKey: key.publicKey, notBefore: NOW, notAfter: later(1), dnsNames: names, ipAddresses, signer: { privateKey: serverKey.privateKey, certificate: new X509Certificate(constrained) } });
    };
    const dir = mkdtempSync(join(tmpdir(), 'panel-x509-'));
    try {
      writeFileSync(join(dir, 'root.pem'), root.toString());
      writeFileSync(join(dir, 'server.pem'), constrained);
      const at = String(Math.floor(later(0.5).getTime() / 1000));
      const verify = async (names: string[], ipAddresses?: string[]) => {
        writeFileSync(join(dir, 'leaf.pem'), leaf(names, ipAddresses));
        const child = Bun.spawn(['openssl', 'verify', '-attime', at, '-CAfile', join(dir, 'root.pem'), '-untrusted', join(dir, 'server.pem'), '-purpose', 'sslserver', join(dir, 'leaf.pem')], { stdout: 'pipe', stderr: 'pipe' });
        const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
        return { code: await child.exited, text: stdout + stderr };
      };
      for (const names of [['shop.example.test'], ['www.shop.example.test'], ['*.example.org', 'example.org']]) {
        const verified = await verify(names);
        expect(verified.text, names.join()).toContain(': OK');
        expect(verified.code).toBe(0);
      }
      for (const names of [['bank.example.test'], ['shop.example.test', 'other.test'], ['example.test']]) {
        const refused = await verify(names);
        expect(refused.text, names.join()).toContain('permitted subtree violation');
        expect(refused.code).not.toBe(0);
      }
      // No IPv4 address permitted: an IP address in a certificate below it is refused too.
      const ip = await verify(['shop.example.test'], ['10.0.0.5']);
      expect(ip.text).toContain('excluded subtree violation');
      expect(ip.code).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a self-signed certificate must be a CA', () => {
    const key = generateSigningKey();
    expect(() => issueCertificate({ subject: { commonName: 'x' }, publicKey: key.publicKey, notBefore: NOW, notAfter: later(1), signer: { privateKey: key.privateKey } })).toThrow(
      'must be a CA',
    );
  });
});
