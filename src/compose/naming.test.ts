import { describe, expect, test } from 'bun:test';
import { DomainError } from '../lib/errors.ts';
import {
  allocateSecretNames,
  composeProjectName,
  customContainerName,
  SECRET_NAME,
  type SecretNameRequest,
  uuidContainerName,
} from './naming.ts';

const SERVICE_ID = '0194ABCD-0000-7000-8000-000000000B01';

describe('names of projects and containers', () => {
  test('the project is pn-<environment id>, lowercased', () => {
    expect(composeProjectName('0194ABCD-0000-7000-8000-000000000004')).toBe('pn-0194abcd-0000-7000-8000-000000000004');
    expect(() => composeProjectName('not a valid id')).toThrow(DomainError);
  });

  test('uuid naming: the service id with the ordinal, -in for the ingress, -ha for the controller', () => {
    expect(uuidContainerName(SERVICE_ID, 1)).toBe('0194abcd-0000-7000-8000-000000000b01-1');
    expect(uuidContainerName(SERVICE_ID, 12)).toBe('0194abcd-0000-7000-8000-000000000b01-12');
    expect(uuidContainerName(SERVICE_ID, 'ingress')).toBe('0194abcd-0000-7000-8000-000000000b01-in');
    expect(uuidContainerName(SERVICE_ID, 'controller')).toBe('0194abcd-0000-7000-8000-000000000b01-ha');
  });

  test('custom naming keeps the authored name, suffixed per instance; Compose default otherwise', () => {
    const request = { project: 'pn-env', composeServiceName: 'web', ordinal: 1, instances: 1 };
    expect(customContainerName({ ...request, authored: 'shop-web' })).toBe('shop-web');
    expect(customContainerName({ ...request, authored: 'shop-web', ordinal: 2, instances: 3 })).toBe('shop-web-2');
    expect(customContainerName({ ...request, authored: undefined })).toBe('pn-env-web-1');
    expect(customContainerName({ ...request, authored: undefined, ordinal: 3, instances: 3 })).toBe('pn-env-web-3');
  });
});

describe('allocateSecretNames', () => {
  const names = (requests: SecretNameRequest[], taken: string[] = []) => allocateSecretNames(requests, new Set(taken));

  test('readable <service>__<key> names when they are unambiguous', () => {
    expect(names([{ composeServiceName: 'web', key: 'DB_PASSWORD' }, { composeServiceName: 'db', key: 'DB_PASSWORD' }])).toEqual([
      'web__db_password',
      'db__db_password',
    ]);
  });

  test('ambiguous readable names all get a hash; the result is deterministic and unique', () => {
    const requests = [
      { composeServiceName: 'web', key: 'Token' },
      { composeServiceName: 'web', key: 'TOKEN' },
      { composeServiceName: 'web', key: '_X' },
      { composeServiceName: 'web_', key: 'X' },
      { composeServiceName: 'web', key: 'PLAIN' },
    ];
    const first = names(requests);
    expect(first).toEqual(names(requests));
    expect(new Set(first).size).toBe(requests.length);
    expect(first[4]).toBe('web__plain');
    for (const name of first.slice(0, 4)) expect(name).toMatch(/^web__[_a-z]+-[0-9a-f]{8}$/);
  });

  test('a name the document already uses, an odd first character or a long key gets a hash', () => {
    const long = 'K'.repeat(200);
    const [taken, dotted, cut] = names(
      [
        { composeServiceName: 'web', key: 'API_KEY' },
        { composeServiceName: '_hidden', key: 'API_KEY' },
        { composeServiceName: 'web', key: long },
      ],
      ['web__api_key'],
    );
    expect(taken).toMatch(/^web__api_key-[0-9a-f]{8}$/);
    expect(dotted).toMatch(/^hidden__api_key-[0-9a-f]{8}$/);
    expect(cut!.length).toBeLessThanOrEqual(109);
    for (const name of [taken, dotted, cut]) expect(name).toMatch(SECRET_NAME);
  });
});
