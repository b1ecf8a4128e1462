/**
 * The registry: a rule for every top-level key of the Compose specification and for every key
 * of its resources (networks, volumes, secrets, configs); services are in service-rules.ts.
 * registry.test.ts derives the keys from the specification's JSON schema (compose-go's copy,
 * vendored beside it) and proves each one is classified here.
 */
import { labels, serviceRule } from './service-rules.ts';
import { allowed, checked, host, mapping, platformOwned, type Rule } from './rule.ts';
import {
  checkExternal,
  checkFileSource,
  checkIpamConfig,
  checkNetworkDriverOptions,
  checkResourceName,
  checkSecretFile,
  checkVolumeDriverOptions,
  longFormOnly,
  oneOfOrHostAccess,
} from './value-checks.ts';

const external = checked('false only', checkExternal, { shorthand: longFormOnly, keys: { name: allowed } });

const network = mapping({
  name: checked("Compose's own <project>_<key> only", checkResourceName('networks')),
  driver: checked(
    'bridge or overlay',
    oneOfOrHostAccess(['bridge', 'overlay'], (driver) => `the ${driver} network driver attaches containers to the host's network`),
  ),
  driver_opts: checked('com.docker.network.driver.mtu and com.docker.network.bridge.enable_icc only', checkNetworkDriverOptions),
  attachable: allowed,
  enable_ipv4: allowed,
  enable_ipv6: allowed,
  external,
  internal: allowed,
  labels,
  ipam: mapping({
    driver: checked('default only', oneOfOrHostAccess(['default'], (driver) => `the ${driver} IPAM driver is a host plugin`)),
    // The check gates the whole list: what its items hold matters only with host access.
    config: checked("the overlay fabric's own subnet only (compiled documents)", checkIpamConfig, {
      items: mapping({ subnet: allowed, ip_range: allowed, gateway: allowed, aux_addresses: allowed }),
    }),
    options: host('IPAM options configure the host plugin'),
  }),
});

const volume = mapping({
  name: checked("Compose's own <project>_<key> only", checkResourceName('volumes')),
  driver: checked('local only', oneOfOrHostAccess(['local'], (driver) => `the ${driver} volume driver is a host plugin`)),
  driver_opts: checked('a tmpfs only (type: tmpfs, device: tmpfs, o: …)', checkVolumeDriverOptions),
  external,
  labels,
});

const fileResource = (file: Rule, extra: Record<string, Rule> = {}): Rule =>
  mapping({
    file,
    environment: host("the value comes from the daemon's own environment"),
    external,
    name: allowed,
    labels,
    template_driver: host('template drivers are host plugins'),
    ...extra,
  });

const secret = fileResource(checked("inside the project folder (or the daemon's own secret file)", checkSecretFile), {
  driver: host('secret drivers are host plugins'),
  driver_opts: host('secret drivers are host plugins'),
});

const config = fileResource(checked('inside the project folder', checkFileSource), { content: allowed });

export const ROOT_RULES: Readonly<Record<string, Rule>> = {
  version: allowed,
  name: allowed,
  include: host('include reads other Compose files from the server'),
  services: { access: 'allowed', entries: serviceRule },
  networks: { access: 'allowed', entries: network },
  volumes: { access: 'allowed', entries: volume },
  secrets: { access: 'allowed', entries: secret },
  configs: { access: 'allowed', entries: config },
  models: host("models run on the server's model runner with its settings"),
  /** Panel's own extension: x-panel.ts validates principals; placement is the environment's. */
  'x-panel': mapping({
    principals: allowed,
    placement: platformOwned('placement is set on the environment (serverId), never in a document'),
  }),
};

export const rootRule = mapping(ROOT_RULES);
