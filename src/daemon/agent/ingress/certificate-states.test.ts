import { afterEach, describe, expect, test } from 'bun:test';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverCertificate } from '../../../../test/certificates.ts';
import type { HostnameCertificate } from '../../../ingress/caddy-config.ts';
import { certificateStates, failuresFromLog, safeStorageName } from './certificate-states.ts';

const HOSTING = '0190a000-0000-7000-8000-00000000000a';
const CERT = '0190a000-0000-7000-8000-0000000000ce';
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function storageWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'panel-storage-'));
  dirs.push(dir);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const planned = (hostname: string, source: HostnameCertificate['source'], problem: string | null = null): HostnameCertificate => ({ hostingId: HOSTING, hostname, source, problem });
const log = (...entries: object[]) => entries.map((entry) => JSON.stringify(entry)).join('\n');

test("storage names follow certmagic's", () => {
  expect(safeStorageName('Shop.Example.test')).toBe('shop.example.test');
  expect(safeStorageName('*.example.test')).toBe('wildcard_.example.test');
  expect(safeStorageName('h3:14000')).toBe('h3-14000');
});

test('the last failure per identifier, cleared by a later success', () => {
  const failures = failuresFromLog(
    log(
      { msg: 'obtaining certificate', identifier: 'a.test' },
      { msg: 'could not get certificate from issuer', identifier: 'a.test', error: 'HTTP 400 urn:ietf:params:acme:error:dns' },
      { msg: 'could not get certificate from issuer', identifier: 'B.test', error: 'first' },
      { msg: 'certificate obtained successfully', identifier: 'b.test' },
    ) + '\nnot json\n',
  );
  expect([...failures]).toEqual([['a.test', 'HTTP 400 urn:ietf:params:acme:error:dns']]);
});

describe('certificate states', () => {
  test('stored certificates are issued with their issuer and expiry; ACME failures and pending ones say so', async () => {
    const internal = serverCertificate({ names: ['int.test'] });
    const acme = serverCertificate({ names: ['pub.test'] });
    const storage = storageWith({
      'certificates/panel/int.test/int.test.crt': internal.leaf,
      'certificates/acme.example-dir/pub.test/pub.test.crt': acme.leaf,
      'certificates/acme.example-dir/wrong-issuer.test/wrong-issuer.test.crt': internal.leaf,
    });
    const states = await certificateStates(
      [planned('int.test', 'internal'), planned('pub.test', 'acme'), planned('fail.test', 'acme'), planned('wait.test', 'acme'), planned('wrong-issuer.test', 'internal'), planned('plain.test', 'none')],
      [],
      new Map(),
      storage,
      log({ msg: 'could not get certificate from issuer', identifier: 'fail.test', error: 'no such host' }),
    );
    const notAfter = (pem: string) => new Date(new X509Certificate(pem).validTo).getTime();
    expect(states).toEqual([
      { hostingId: HOSTING, hostname: 'int.test', source: 'internal', status: 'issued', error: null, issuer: 'O=Panel tests, CN=Test CA', notAfter: notAfter(internal.leaf) },
      { hostingId: HOSTING, hostname: 'pub.test', source: 'acme', status: 'issued', error: null, issuer: 'O=Panel tests, CN=Test CA', notAfter: notAfter(acme.leaf) },
      { hostingId: HOSTING, hostname: 'fail.test', source: 'acme', status: 'failed', error: 'no such host', issuer: null, notAfter: null },
      { hostingId: HOSTING, hostname: 'wait.test', source: 'acme', status: 'pending', error: null, issuer: null, notAfter: null },
      { hostingId: HOSTING, hostname: 'wrong-issuer.test', source: 'internal', status: 'pending', error: null, issuer: null, notAfter: null },
      { hostingId: HOSTING, hostname: 'plain.test', source: 'none', status: null, error: null, issuer: null, notAfter: null },
    ]);
  });

  test('a library certificate is issued with the delivered chain; a hostname it does not cover keeps the problem', async () => {
    const uploaded = serverCertificate({ names: ['shop.test'] });
    const states = await certificateStates(
      [planned('shop.test', 'library'), planned('other.test', 'library', 'the pinned certificate is not valid for other.test')],
      [{ id: CERT, certificate: uploaded.chain, key: 'pndaemon.v1.x', names: ['shop.test'] }],
      new Map([[HOSTING, CERT]]),
      storageWith({}),
      '',
    );
    expect(states.map((entry) => [entry.status, entry.error])).toEqual([
      ['issued', null],
      ['issued', 'the pinned certificate is not valid for other.test'],
    ]);
  });
});
