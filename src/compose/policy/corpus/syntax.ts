import type { PolicyCase } from './case.ts';

const BASE = 'services:\n  web:\n    image: busybox\n    volumes: ["./data:/data"]\n';

/** YAML anchors and merge keys: the policy sees the expanded document. */
export const ANCHOR_CASES: PolicyCase[] = [
  { name: 'an anchor reused for an allowed setting', base: 'x-logging: &logging {driver: json-file}\nservices:\n  web: {image: busybox, logging: *logging}\n  db: {image: busybox, logging: *logging}\n' },
  { name: 'a merge key bringing pid host', base: 'x-host: &host {pid: host}\nservices:\n  web:\n    <<: *host\n    image: busybox\n', refused: 'services.web.pid' },
  { name: 'a merge key bringing privileged into a second service', base: 'x-base: &base {image: busybox, privileged: true}\nservices:\n  web: {<<: *base}\n', refused: 'services.web.privileged' },
  { name: 'several merge keys, the second one host access', base: 'x-a: &a {image: busybox}\nx-b: &b {network_mode: host}\nservices:\n  web:\n    <<: [*a, *b]\n', refused: 'services.web.network_mode' },
  { name: 'an aliased list of volumes with a host bind', base: 'x-volumes: &volumes ["./data:/data", "/etc:/etc:ro"]\nservices:\n  web: {image: busybox, volumes: *volumes}\n', refused: 'services.web.volumes.1' },
  { name: 'an aliased capability', base: 'x-cap: &cap SYS_ADMIN\nservices:\n  web: {image: busybox, cap_add: [*cap]}\n', refused: 'services.web.cap_add.0' },
  { name: 'an anchored service reused under another name', base: 'services:\n  web: &svc {image: busybox, devices: ["/dev/fuse"]}\n  copy: *svc\n', refused: 'services.web.devices' },
  { name: 'a merge key overridden by a local safe value', base: 'x-host: &host {network_mode: host}\nservices:\n  web:\n    <<: *host\n    image: busybox\n    network_mode: none\n' },
];

/** Environment overlays with !reset and !override: each layer is checked, and the merged model. */
export const TAG_CASES: PolicyCase[] = [
  { name: 'an overlay adding a host bind', base: BASE, overlay: 'services:\n  web:\n    volumes: ["/etc:/etc"]\n', refused: 'services.web.volumes.0', daemon: 'services.web.volumes.1' },
  { name: 'an overlay replacing volumes with !override', base: BASE, overlay: 'services:\n  web:\n    volumes: !override ["/:/host"]\n', refused: 'services.web.volumes.0' },
  { name: 'an overlay replacing a service with !override', base: BASE, overlay: 'services:\n  web: !override {image: busybox, pid: host}\n', refused: 'services.web.pid' },
  { name: 'an overlay !override of a scalar', base: BASE, overlay: 'services:\n  web:\n    network_mode: !override host\n', refused: 'services.web.network_mode' },
  { name: 'an overlay !reset of a volume list', base: BASE, overlay: 'services:\n  web:\n    volumes: !reset []\n' },
  { name: 'an overlay !reset of capabilities (dropping is fine)', base: 'services:\n  web:\n    image: busybox\n    cap_add: [CHOWN]\n', overlay: 'services:\n  web:\n    cap_add: !reset []\n' },
  { name: 'a !reset tag on a host setting sets nothing', base: BASE, overlay: 'services:\n  web:\n    privileged: !reset true\n    devices: !reset ["/dev/sda"]\n' },
  { name: 'an overlay adding a privileged service', base: BASE, overlay: 'services:\n  agent: {image: busybox, privileged: true}\n', refused: 'services.agent.privileged' },
  { name: 'an overlay adding a host-backed volume', base: BASE, overlay: 'volumes:\n  etc: {driver_opts: {type: none, o: bind, device: /etc}}\n', refused: 'volumes.etc.driver_opts' },
  { name: 'an overlay placing the environment', base: BASE, overlay: 'x-panel:\n  placement: {server_id: x}\n', refused: 'x-panel.placement', always: true, daemon: 'inert' },
  { name: 'an overlay capability on a base service', base: BASE, overlay: 'services:\n  web:\n    cap_add: [NET_ADMIN]\n', refused: 'services.web.cap_add.0' },
  { name: 'an overlay extending within itself', base: BASE, overlay: 'services:\n  tool: {image: busybox, pid: host}\n  job: {extends: tool}\n', refused: 'services.tool.pid' },
];

/** `$VAR` interpolation: a checked value that interpolates cannot be checked before deploy. */
export const INTERPOLATION_CASES: PolicyCase[] = [
  { name: 'an interpolated bind source', base: 'services:\n  web:\n    image: busybox\n    volumes: ["${DATA_DIR}:/data"]\n', refused: 'services.web.volumes.0' },
  { name: 'an interpolated default that is the host', base: 'services:\n  web:\n    image: busybox\n    volumes: ["${DATA_DIR:-/}:/data"]\n', refused: 'services.web.volumes.0' },
  { name: 'an interpolated long-syntax source', base: 'services:\n  web:\n    image: busybox\n    volumes: [{type: bind, source: "$HOME", target: /h}]\n', refused: 'services.web.volumes.0.source' },
  { name: 'interpolated privileged', base: 'services:\n  web:\n    image: busybox\n    privileged: ${PRIVILEGED:-false}\n', refused: 'services.web.privileged' },
  { name: 'interpolated network_mode', base: 'services:\n  web:\n    image: busybox\n    network_mode: ${MODE:-none}\n', refused: 'services.web.network_mode' },
  { name: 'an interpolated capability', base: 'services:\n  web:\n    image: busybox\n    cap_add: ["${CAP:-CHOWN}"]\n', refused: 'services.web.cap_add.0' },
  { name: 'an interpolated env file', base: 'services:\n  web:\n    image: busybox\n    env_file: ["${ENV_FILE:-./app.env}"]\n', refused: 'services.web.env_file.0' },
  { name: 'an interpolated secret file', base: 'services:\n  web:\n    image: busybox\n    secrets: [token]\nsecrets:\n  token: {file: "${TOKEN_FILE:-./token}"}\n', refused: 'secrets.token.file' },
  { name: 'an interpolated label name', base: 'services:\n  web:\n    image: busybox\n    labels: ["${LABEL:-com.docker.compose.project}=x"]\n', refused: 'services.web.labels.0' },
  { name: 'an interpolated build context', base: 'services:\n  web:\n    image: busybox\n    build: ${CONTEXT:-.}\n', refused: 'services.web.build' },
  { name: 'interpolation where it is harmless', base: 'services:\n  web:\n    image: "busybox:${TAG:-latest}"\n    command: ["echo", "$HOME"]\n    environment: {GREETING: "${GREETING:-hi}"}\n' },
  { name: 'a literal dollar in a path', base: 'services:\n  web:\n    image: busybox\n    volumes: ["./cost$$:/data"]\n' },
];

/** `data` bodies as the JSON API takes them, tag markers included. */
export const JSON_CASES: PolicyCase[] = [
  { name: 'JSON: an allowed service', base: { services: { web: { image: 'busybox', volumes: ['./data:/data'], cap_add: ['CHOWN'] } } } },
  { name: 'JSON: privileged', base: { services: { web: { image: 'busybox', privileged: true } } }, refused: 'services.web.privileged' },
  { name: 'JSON: a host bind, long syntax', base: { services: { web: { image: 'busybox', volumes: [{ type: 'bind', source: '/var/lib/panel', target: '/p' }] } } }, refused: 'services.web.volumes.0.source' },
  { name: 'JSON: an $override marker around a host setting', base: { services: { web: { image: 'busybox', network_mode: { $override: 'host' } } } }, refused: 'services.web.network_mode' },
  { name: 'JSON: a $reset marker around a host setting', base: { services: { web: { image: 'busybox', privileged: { $reset: true } } } } },
  { name: 'JSON: an $override service with a device', base: { services: { web: { $override: { image: 'busybox', devices: ['/dev/mem'] } } } }, refused: 'services.web.devices' },
  { name: 'JSON: include', base: { include: ['/etc/compose.yaml'], services: { web: { image: 'busybox' } } }, refused: 'include' },
  { name: 'JSON: a secret from a host file', base: { services: { web: { image: 'busybox', secrets: ['s'] } }, secrets: { s: { file: '/root/.ssh/id_ed25519' } } }, refused: 'secrets.s.file' },
  { name: 'JSON: placement', base: { 'x-panel': { placement: { server_id: 'x' } }, services: { web: { image: 'busybox' } } }, refused: 'x-panel.placement', always: true, daemon: 'inert' },
  { name: 'JSON: numbers and booleans where Compose takes them', base: { services: { web: { image: 'busybox', init: true, oom_score_adj: 0, ports: [8080], stop_grace_period: '1s' } } } },
];
