import { describe, expect, test } from 'bun:test';
import { parseComposeText } from './document.ts';
import { type ComposeValidationOptions, validateCompose } from './validate.ts';

const invalid = (path?: string) => expect.objectContaining({ code: 'compose_invalid', status: 422, path });

function check(text: string, options?: ComposeValidationOptions) {
  return () => validateCompose(parseComposeText(text).data, options);
}

describe('document shape', () => {
  test('services must be a mapping of mappings', () => {
    expect(check('services: [web]')).toThrow(invalid('services'));
    expect(check('services: {web: nginx}')).toThrow(invalid('services.web'));
    expect(check('services: {web: {image: nginx}}')).not.toThrow();
  });

  test('top-level resource sections must be mappings', () => {
    expect(check('networks: [front]')).toThrow(invalid('networks'));
    expect(check('volumes: {data: {}}\nsecrets: {}\nconfigs: {}')).not.toThrow();
  });

  test('a root that is not a mapping is refused', () => {
    expect(() => validateCompose(['services'])).toThrow(invalid(undefined));
  });

  test('!reset entries of an overlay are not validated', () => {
    expect(check('services: {web: !reset {}, api: {x-panel: !reset {}}}\nx-panel: !reset {}')).not.toThrow();
  });
});

describe('x-panel at the root', () => {
  test('placement is refused with path x-panel.placement', () => {
    expect(check('x-panel: {placement: {server_id: abc}}')).toThrow(invalid('x-panel.placement'));
    expect(check('x-panel: {placement: {server_id: abc}}')).toThrow(/environment/);
    expect(check('x-panel: !override {placement: {}}')).toThrow(invalid('x-panel.placement'));
  });

  test('unknown keys are refused', () => {
    expect(check('x-panel: {region: eu}')).toThrow(invalid('x-panel.region'));
  });

  test('principals: alias, username, ids and shell are checked', () => {
    expect(check('x-panel: {principals: {app: {username: app, uid: 1001, gid: 1001, shell: /bin/bash}, bare: null}}')).not.toThrow();
    expect(check('x-panel: {principals: {app: {username: "bad name"}}}')).toThrow(invalid('x-panel.principals.app.username'));
    expect(check('x-panel: {principals: {app: {uid: "1001"}}}')).toThrow(invalid('x-panel.principals.app.uid'));
    expect(check('x-panel: {principals: {app: {shell: /bin/evil}}}')).toThrow(invalid('x-panel.principals.app.shell'));
    expect(check('x-panel: {principals: {app: {home: /srv}}}')).toThrow(invalid('x-panel.principals.app.home'));
    expect(check('x-panel: {principals: {"9lives": {}}}')).toThrow(invalid('x-panel.principals.9lives'));
  });

  test('uid 0 (root) needs host access', () => {
    expect(check('x-panel: {principals: {root: {uid: 0}}}')).toThrow(invalid('x-panel.principals.root.uid'));
    expect(check('x-panel: {principals: {root: {uid: 0}}}', { policy: { hostAccess: true } })).not.toThrow();
  });
});

describe('x-panel on a service', () => {
  const service = (xPanel: string, root = '') => `${root}services:\n  web:\n    image: app\n    x-panel: ${xPanel}\n`;

  test('a complete extension is accepted', () => {
    const text = service(
      `{serviceKind: web, principal: app, source: {sourceId: 0190b5a4-7c1e-7a3b-8c2d-123456789abc, ref: main},
        php: {version: "8.3"}, cron: [{schedule: "*/5 * * * *", command: [php, artisan]}, {schedule: "@daily", command: backup}],
        hosting: [{hostnames: [example.com, "*.example.com"], pathPrefix: /api, targetPort: 8080, tls: auto, bind: public},
                  {protocol: tcp, port: 5432, targetPort: 5432, bind: local}]}`,
      'x-panel: {principals: {app: {}}}\n',
    );
    expect(check(text)).not.toThrow();
  });

  test('wrong types are refused with the full path', () => {
    expect(check(service('{hosting: [{hostname: example.com, targetPort: "80"}]}'))).toThrow(
      invalid('services.web.x-panel.hosting.0.targetPort'),
    );
    expect(check(service('{hosting: {hostname: example.com}}'))).toThrow(invalid('services.web.x-panel.hosting'));
    expect(check(service('{serviceKind: lambda}'))).toThrow(invalid('services.web.x-panel.serviceKind'));
    expect(check(service('{php: "8.3"}'))).toThrow(invalid('services.web.x-panel.php'));
    expect(check(service('{source: {sourceId: 42}}'))).toThrow(invalid('services.web.x-panel.source.sourceId'));
    expect(check(service('{cron: [{schedule: "every minute", command: x}]}'))).toThrow(
      invalid('services.web.x-panel.cron.0.schedule'),
    );
    expect(check(service('{cron: [{schedule: "@hourly", command: []}]}'))).toThrow(invalid('services.web.x-panel.cron.0.command'));
  });

  test('hosting rules per protocol', () => {
    expect(check(service('{hosting: [{targetPort: 80}]}'))).toThrow(invalid('services.web.x-panel.hosting.0.hostnames'));
    expect(check(service('{hosting: [{protocol: udp, targetPort: 53}]}'))).toThrow(invalid('services.web.x-panel.hosting.0.port'));
    expect(check(service('{hosting: [{protocol: tcp, port: 22, tls: auto}]}'))).toThrow(invalid('services.web.x-panel.hosting.0.tls'));
    expect(check(service('{hosting: [{hostname: "not a host"}]}'))).toThrow(invalid('services.web.x-panel.hosting.0.hostname'));
  });

  test('unknown keys, placement included, are refused', () => {
    expect(check(service('{placement: {server: a}}'))).toThrow(invalid('services.web.x-panel.placement'));
    expect(check(service('{hosting: [{hostname: a.example, weight: 2}]}'))).toThrow(invalid('services.web.x-panel.hosting.0.weight'));
  });

  test('the principal must be declared, here or by the base (knownPrincipals)', () => {
    expect(check(service('{principal: app}'))).toThrow(invalid('services.web.x-panel.principal'));
    expect(check(service('{principal: app}'), { knownPrincipals: ['app'] })).not.toThrow();
    expect(validateCompose(parseComposeText('x-panel: {principals: {app: {}}}').data).principals).toEqual(new Set(['app']));
  });
});

describe('the Compose policy (policy/ has its own tests)', () => {
  test('applies to every document, host access only where the policy says so', () => {
    const text = 'services:\n  web:\n    image: app\n    privileged: true\n';
    expect(check(text)).toThrow(invalid('services.web.privileged'));
    expect(check(text, { policy: { hostAccess: true } })).not.toThrow();
  });

  test('a key Compose does not have is refused with its path', () => {
    expect(check('services: {web: {image: app, priviledged: true}}')).toThrow(invalid('services.web.priviledged'));
  });
});

describe('what the placement planner reads is checked at save', () => {
  test('replicas, global mode and every placement form the planner honours stay allowed, in base and overlay forms', () => {
    const text = `services:
  web:
    image: app
    ports: ["8080:80", "127.0.0.1:9000-9001:90/udp", {target: 443, published: "8443"}, "\${PORT}:80"]
    deploy:
      replicas: 3
      placement:
        constraints: [node.labels.disk == ssd, "node.hostname!=h1", node.id == 0194]
        preferences: [{spread: node.labels.zone}]
        max_replicas_per_node: 1
  agent:
    image: agent
    deploy: {mode: global, placement: {constraints: !override [node.labels.role == edge]}}
  db:
    image: db
    deploy: {replicas: !reset null}
`;
    expect(check(text)).not.toThrow();
  });

  test('what the planner cannot honour is refused with its path', () => {
    expect(check('services: {web: {deploy: {placement: {constraints: [node.role == manager]}}}}')).toThrow(invalid('services.web.deploy.placement.constraints.0'));
    expect(check('services: {web: {deploy: {placement: {preferences: [{spread: node.role}]}}}}')).toThrow(invalid('services.web.deploy.placement.preferences.0'));
    expect(check('services: {web: {deploy: {mode: global-job}}}')).toThrow(invalid('services.web.deploy.mode'));
    expect(check('services: {web: {deploy: {replicas: -1}}}')).toThrow(invalid('services.web.deploy.replicas'));
    expect(check('services: {web: {ports: ["99999:80"]}}')).toThrow(invalid('services.web.ports.0'));
  });
});
