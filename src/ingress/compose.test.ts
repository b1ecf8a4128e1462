import { expect, test } from 'bun:test';
import { parse } from 'yaml';
import { checkComposePolicy } from '../compose/policy/index.ts';
import { assertComposeAccepts } from '../../test/compose-checks.ts';
import { ingressComposeModel, ingressComposeYaml } from './compose.ts';

const input = {
  image: 'caddy:2.10',
  organizationId: '0190a000-0000-7000-8000-0000000000a1',
  projectId: '0190a000-0000-7000-8000-0000000000b1',
  environmentId: '0190a000-0000-7000-8000-0000000000c1',
  serviceId: '0190a000-0000-7000-8000-0000000000d1',
};

test('one Caddy on the host network, its folders from the daemon, capabilities dropped, labelled as the ingress', () => {
  const caddy = (ingressComposeModel(input).services as Record<string, Record<string, unknown>>).caddy!;
  expect(caddy).toMatchObject({
    image: 'caddy:2.10',
    container_name: `${input.serviceId}-in`,
    entrypoint: ['/usr/bin/caddy'],
    command: ['run', '--config', '/etc/panel-ingress/caddy.json'],
    network_mode: 'host',
    cap_drop: ['ALL'],
    cap_add: ['NET_BIND_SERVICE'],
    security_opt: ['no-new-privileges:true'],
  });
  expect(caddy.volumes).toEqual(['./state/etc:/etc/panel-ingress:ro', './state/run:/run/panel-ingress', './state/data:/data', './state/log:/var/log/panel-ingress']);
  expect(caddy.labels).toMatchObject({ 'dev.panel.role': 'ingress', 'dev.panel.service-id': input.serviceId, 'dev.panel.ordinal': '1' });
  expect(caddy.ports).toBeUndefined();
  expect(parse(ingressComposeYaml(input))).toEqual(ingressComposeModel(input));
});

test("Compose and the daemon's policy check accept the document for a platform project, and only for one", async () => {
  await assertComposeAccepts([{ name: 'ingress', project: `pn-${input.environmentId}`, yaml: ingressComposeYaml(input), secretNames: [], policy: { hostAccess: false, platform: true } }]);
  checkComposePolicy(ingressComposeModel(input), { hostAccess: false, platform: true, form: 'compiled' });
  expect(() => checkComposePolicy(ingressComposeModel(input), { hostAccess: false, form: 'compiled' })).toThrow('network_mode');
});
