import type { PolicyCase } from './case.ts';

const withNetwork = (network: string) => `services:\n  web:\n    image: busybox\n    networks: [app]\nnetworks:\n  app: ${network}\n`;
const withVolume = (volume: string) => `services:\n  web:\n    image: busybox\n    volumes: ["data:/data"]\nvolumes:\n  data: ${volume}\n`;
const withSecret = (secret: string) => `services:\n  web:\n    image: busybox\n    secrets: [token]\nsecrets:\n  token: ${secret}\n`;
const withConfig = (config: string) => `services:\n  web:\n    image: busybox\n    configs: [settings]\nconfigs:\n  settings: ${config}\n`;

/** Top-level networks, volumes, secrets and configs. */
export const RESOURCE_CASES: PolicyCase[] = [
  { name: 'a bridge network of the project', base: withNetwork('{driver: bridge, internal: true, attachable: true, enable_ipv6: false, labels: {team: shop}}') },
  { name: 'an overlay network (the fabric)', base: withNetwork('{driver: overlay}') },
  { name: 'a network with an MTU', base: withNetwork('{driver_opts: {com.docker.network.driver.mtu: "1420"}}') },
  { name: 'service network settings', base: 'services:\n  web:\n    image: busybox\n    networks:\n      app: {aliases: [api], priority: 10}\nnetworks:\n  app: {}\n' },
  { name: 'an external network', base: withNetwork('{external: true, name: pn-other_default}'), refused: 'networks.app.external' },
  { name: "a fixed network name (another project's)", base: withNetwork('{name: pn-other_default}'), refused: 'networks.app.name' },
  { name: 'a macvlan network', base: withNetwork('{driver: macvlan, driver_opts: {parent: eth0}}'), refused: 'networks.app.driver' },
  { name: 'the host network driver', base: withNetwork('{driver: host}'), refused: 'networks.app.driver' },
  { name: 'a bridge named like a host interface', base: withNetwork('{driver_opts: {com.docker.network.bridge.name: eth0}}'), refused: 'networks.app.driver_opts.com.docker.network.bridge.name' },
  { name: 'a fixed subnet', base: withNetwork('{ipam: {config: [{subnet: 10.0.0.0/8}]}}'), refused: 'networks.app.ipam.config' },
  { name: 'an IPAM driver plugin', base: withNetwork('{ipam: {driver: dhcp}}'), refused: 'networks.app.ipam.driver' },
  { name: 'a network label of Compose', base: withNetwork('{labels: {com.docker.compose.network: other}}'), refused: 'networks.app.labels.com.docker.compose.network', always: true },
  { name: 'a local volume', base: withVolume('{driver: local, labels: {backup: daily}}') },
  { name: 'a tmpfs volume', base: withVolume('{driver_opts: {type: tmpfs, device: tmpfs, o: "size=100m,uid=1000"}}') },
  { name: 'an external volume', base: withVolume('{external: true, name: pn-other_data}'), refused: 'volumes.data.external' },
  { name: "a fixed volume name (another project's)", base: withVolume('{name: pn-other_data}'), refused: 'volumes.data.name' },
  { name: 'a volume bound to a host folder', base: withVolume('{driver: local, driver_opts: {type: none, o: bind, device: /etc}}'), refused: 'volumes.data.driver_opts' },
  { name: 'a volume on an NFS share', base: withVolume('{driver_opts: {type: nfs, o: "addr=10.0.0.1", device: ":/export"}}'), refused: 'volumes.data.driver_opts' },
  { name: 'a volume driver plugin', base: withVolume('{driver: rexray}'), refused: 'volumes.data.driver' },
  { name: 'a secret from the project folder', base: withSecret('{file: ./token.txt}') },
  { name: 'a secret from a host file', base: withSecret('{file: /etc/shadow}'), refused: 'secrets.token.file' },
  { name: "a secret from the daemon's state", base: withSecret('{file: /var/lib/panel-daemon/identity.json}'), refused: 'secrets.token.file' },
  { name: "a secret from the daemon's environment", base: withSecret('{environment: HOME}'), refused: 'secrets.token.environment' },
  { name: 'an external secret', base: withSecret('{external: true}'), refused: 'secrets.token.external' },
  { name: "a secret climbing into Panel's secret files", base: withSecret('{file: ../pn-1.panel/secrets/other__token}'), refused: 'secrets.token.file' },
  { name: 'a config from a host file', base: withConfig('{file: /etc/hosts}'), refused: 'configs.settings.file' },
  { name: "a config from the daemon's environment", base: withConfig('{environment: PATH}'), refused: 'configs.settings.environment' },
  { name: 'an external config', base: withConfig('{external: true}'), refused: 'configs.settings.external' },
  { name: 'include', base: 'include: [../other/compose.yaml]\nservices:\n  web:\n    image: busybox\n', refused: 'include' },
  { name: 'models', base: 'services:\n  web:\n    image: busybox\nmodels:\n  llm: {model: ai/smollm2}\n', refused: 'models' },
  { name: 'a service using a model', base: 'services:\n  web:\n    image: busybox\n    models: [llm]\n', refused: 'services.web.models' },
];

/** Settings the platform owns: refused with host access too. */
export const PLATFORM_CASES: PolicyCase[] = [
  { name: 'x-panel.placement', base: 'x-panel:\n  placement: {server_id: 0196a4f2-8e1c-7b3d-9f00-1234567890ab}\nservices:\n  web:\n    image: busybox\n', refused: 'x-panel.placement', always: true, daemon: 'inert' },
  { name: 'a label of Compose on a service', base: 'services:\n  web:\n    image: busybox\n    labels: {com.docker.compose.project: pn-other}\n', refused: 'services.web.labels.com.docker.compose.project', always: true },
  { name: 'a label of Compose, list form', base: 'services:\n  web:\n    image: busybox\n    labels: ["com.docker.compose.service=db"]\n', refused: 'services.web.labels.0', always: true },
  { name: 'a deploy label of Compose', base: 'services:\n  web:\n    image: busybox\n    deploy: {labels: {com.docker.compose.oneoff: "True"}}\n', refused: 'services.web.deploy.labels.com.docker.compose.oneoff', always: true },
  { name: 'a key Compose does not have', base: 'services:\n  web:\n    image: busybox\n    priviledged: true\n', refused: 'services.web.priviledged', always: true },
  { name: 'a top-level key Compose does not have', base: 'services:\n  web:\n    image: busybox\nservice:\n  db: {image: busybox}\n', refused: 'service', always: true },
];
