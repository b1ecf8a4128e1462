/**
 * The rules of a service (`services.<name>`), one per key of the Compose specification's
 * service definition, nested where the value is structured (build, deploy, volumes, hooks...).
 * registry.test.ts proves every key the specification's JSON schema names is here.
 */
import { isMapping } from '../values.ts';
import { allowed, checked, host, mapping, type Rule, type ValueCheck } from './rule.ts';
import {
  checkBuildCache,
  checkBuildContext,
  checkCapabilities,
  checkDockerfile,
  checkFileSource,
  checkLabels,
  checkLoggingDriver,
  checkOomScoreAdjust,
  checkPropagation,
  checkSecurityOptions,
  checkServiceVolume,
  checkSubpath,
  checkSysctls,
  longFormOnly,
  namesAsMapping,
  namespaceMode,
  oneOfOrHostAccess,
  PLATFORM_NETWORK_MODES,
  trueNeedsHostAccess,
} from './value-checks.ts';

export const labels = checked(`no com.docker.compose.* keys (Compose's own)`, checkLabels);

const privileged = (what: string) => checked('false only', trueNeedsHostAccess(what));

const mountReference = mapping({ source: allowed, target: allowed, uid: allowed, gid: allowed, mode: allowed }, { shorthand: longFormOnly });

const ulimits: Rule = { access: 'allowed', entries: mapping({ soft: allowed, hard: allowed }, { shorthand: longFormOnly }) };

const hook = (extra: Record<string, Rule> = {}): Rule => ({
  access: 'allowed',
  items: mapping({
    command: allowed,
    user: allowed,
    privileged: privileged('a privileged hook runs with full access to the host'),
    working_dir: allowed,
    environment: allowed,
    ...extra,
  }),
});

/** A blkio device entry; `docker compose config` prints it with Go's field names (Path, Rate, Weight). */
const throttle = (limit: string): Rule => {
  const goName = `${limit[0]!.toUpperCase()}${limit.slice(1)}`;
  return { access: 'allowed', items: mapping({ path: allowed, [limit]: allowed, Path: allowed, [goName]: allowed }) };
};

/** A build given as a string is its context. */
const checkBuildShorthand: ValueCheck = (value, path, ctx) => {
  if (typeof value === 'string') checkBuildContext(value, path, ctx);
};

const build = checked('context and Dockerfile inside the project folder (see its keys)', checkBuildShorthand, {
  shorthand: longFormOnly,
  keys: {
    context: checked('a folder inside the project folder, or an http(s) URL', checkBuildContext),
    dockerfile: checked('relative, inside its context and the project folder', checkDockerfile),
    dockerfile_inline: allowed,
    args: allowed,
    ssh: host('build SSH forwards the server\'s SSH agent or keys'),
    cache_from: checked('registry and inline caches only', checkBuildCache),
    cache_to: checked('registry and inline caches only', checkBuildCache),
    additional_contexts: host('additional build contexts read host folders, images or URLs the policy cannot check'),
    entitlements: host('build entitlements (network.host, security.insecure) lift the builder\'s confinement'),
    extra_hosts: allowed,
    isolation: allowed,
    labels,
    network: checked(
      'default or none',
      oneOfOrHostAccess(['default', 'none'], (network) => `the build network ${network} is the host's or another project's`),
    ),
    no_cache: allowed,
    no_cache_filter: allowed,
    platforms: allowed,
    privileged: privileged('a privileged build runs with full access to the host'),
    provenance: allowed,
    pull: allowed,
    sbom: allowed,
    secrets: { access: 'allowed', items: mountReference },
    shm_size: allowed,
    tags: allowed,
    target: allowed,
    ulimits,
  },
});

const rollout = mapping({
  parallelism: allowed,
  delay: allowed,
  failure_action: allowed,
  monitor: allowed,
  max_failure_ratio: allowed,
  order: allowed,
});

const deploy = mapping({
  mode: allowed,
  endpoint_mode: allowed,
  replicas: allowed,
  labels,
  rollback_config: rollout,
  update_config: rollout,
  resources: mapping({
    limits: mapping({ cpus: allowed, memory: allowed, pids: allowed }),
    reservations: mapping({
      cpus: allowed,
      memory: allowed,
      generic_resources: { access: 'allowed', items: mapping({ discrete_resource_spec: mapping({ kind: allowed, value: allowed }) }) },
      devices: host('device reservations (GPUs) hand host devices to the container'),
    }),
  }),
  restart_policy: mapping({ condition: allowed, delay: allowed, max_attempts: allowed, window: allowed }),
  placement: mapping({
    constraints: allowed,
    preferences: { access: 'allowed', items: mapping({ spread: allowed }) },
    max_replicas_per_node: allowed,
  }),
});

const develop = mapping({
  watch: {
    access: 'allowed',
    items: mapping({
      path: checked('inside the project folder', checkFileSource),
      action: allowed,
      target: allowed,
      ignore: allowed,
      include: allowed,
      initial_sync: allowed,
      exec: mapping({
        command: allowed,
        user: allowed,
        privileged: privileged('a privileged exec runs with full access to the host'),
        working_dir: allowed,
        environment: allowed,
      }),
    }),
  },
});

/** An env file given as a plain string (the whole value, or one item). */
const checkEnvFilePath: ValueCheck = (value, path, ctx) => {
  if (typeof value === 'string') checkFileSource(value, path, ctx);
};

const envFile = checked('files inside the project folder', checkEnvFilePath, {
  items: checked('inside the project folder', checkEnvFilePath, {
    shorthand: longFormOnly,
    keys: { path: checked('inside the project folder', checkFileSource), required: allowed, format: allowed },
  }),
});

const volumes: Rule = {
  access: 'allowed',
  items: checked('bind sources inside the project folder (read-only or not)', checkServiceVolume, {
    shorthand: longFormOnly,
    keys: {
      type: checked(
        'bind, volume, tmpfs or image',
        oneOfOrHostAccess(['bind', 'volume', 'tmpfs', 'image'], (type) => `a ${type} mount reaches outside the project`),
      ),
      source: allowed,
      target: allowed,
      read_only: allowed,
      consistency: allowed,
      bind: mapping({
        propagation: checked('not shared or rshared', checkPropagation),
        create_host_path: allowed,
        selinux: allowed,
        recursive: allowed,
      }),
      volume: mapping({ nocopy: allowed, subpath: checked('inside the volume', checkSubpath), labels: allowed }),
      tmpfs: mapping({ size: allowed, mode: allowed }),
      image: mapping({ subpath: checked('inside the image', checkSubpath) }),
    },
  }),
};

const NAMESPACE_SHARED = 'shares a namespace with the host or a container outside the project';

export const SERVICE_RULES: Readonly<Record<string, Rule>> = {
  annotations: host('annotations are passed to the OCI runtime, which may read them as settings'),
  attach: allowed,
  blkio_config: mapping({
    weight: allowed,
    weight_device: throttle('weight'),
    device_read_bps: throttle('rate'),
    device_read_iops: throttle('rate'),
    device_write_bps: throttle('rate'),
    device_write_iops: throttle('rate'),
  }),
  build,
  cap_add: checked("capabilities Docker grants by default only", checkCapabilities),
  cap_drop: allowed,
  cgroup: checked('private only', oneOfOrHostAccess(['private'], (mode) => `cgroup: ${mode} ${NAMESPACE_SHARED}`)),
  cgroup_parent: host('a cgroup parent places the container in a host cgroup'),
  command: allowed,
  configs: { access: 'allowed', items: mountReference },
  container_name: allowed,
  cpu_count: allowed,
  cpu_percent: allowed,
  cpu_period: allowed,
  cpu_quota: allowed,
  cpu_rt_period: host('real-time scheduling can starve the host'),
  cpu_rt_runtime: host('real-time scheduling can starve the host'),
  cpu_shares: allowed,
  cpus: allowed,
  cpuset: allowed,
  credential_spec: host('credential specs read host files or registry entries'),
  depends_on: { access: 'allowed', shorthand: namesAsMapping, entries: mapping({ condition: allowed, required: allowed, restart: allowed }, { shorthand: longFormOnly }) },
  deploy,
  develop,
  device_cgroup_rules: host('device cgroup rules open host devices to the container'),
  devices: host('devices hand host devices to the container'),
  dns: allowed,
  dns_opt: allowed,
  dns_search: allowed,
  domainname: allowed,
  entrypoint: allowed,
  env_file: envFile,
  environment: allowed,
  expose: allowed,
  extends: mapping(
    { service: allowed, file: host('extends.file reads another Compose file from the server') },
    { shorthand: (value) => (isMapping(value) ? value : { service: value }) },
  ),
  external_links: host('external links reach containers outside the project'),
  extra_hosts: allowed,
  gpus: host('GPUs are host devices'),
  group_add: allowed,
  healthcheck: mapping({
    test: allowed,
    interval: allowed,
    timeout: allowed,
    retries: allowed,
    start_period: allowed,
    start_interval: allowed,
    disable: allowed,
  }),
  hostname: allowed,
  image: allowed,
  init: allowed,
  ipc: checked('private, shareable, none or service:<name>', namespaceMode(['private', 'shareable', 'none'])),
  isolation: allowed,
  label_file: host('label files are read from the server'),
  labels,
  links: allowed,
  logging: mapping({ driver: checked('json-file, local or none', checkLoggingDriver), options: allowed }),
  mac_address: allowed,
  mem_limit: allowed,
  mem_reservation: allowed,
  mem_swappiness: allowed,
  memswap_limit: allowed,
  models: host('models run on the server\'s model runner with its settings'),
  network_mode: checked('none or service:<name>', namespaceMode(['none'], PLATFORM_NETWORK_MODES)),
  networks: {
    access: 'allowed',
    shorthand: namesAsMapping,
    entries: mapping(
      {
        aliases: allowed,
        driver_opts: allowed,
        gw_priority: allowed,
        interface_name: allowed,
        ipv4_address: allowed,
        ipv6_address: allowed,
        link_local_ips: allowed,
        mac_address: allowed,
        priority: allowed,
      },
      { shorthand: longFormOnly },
    ),
  },
  oom_kill_disable: privileged('disabling the OOM killer lets the container exhaust the host\'s memory'),
  oom_score_adj: checked('0 or more', checkOomScoreAdjust),
  pid: checked('service:<name> only', namespaceMode([])),
  pids_limit: allowed,
  platform: allowed,
  ports: {
    access: 'allowed',
    items: mapping(
      { name: allowed, target: allowed, published: allowed, host_ip: allowed, protocol: allowed, app_protocol: allowed, mode: allowed },
      { shorthand: longFormOnly },
    ),
  },
  post_start: hook(),
  pre_start: hook({ image: allowed, per_replica: allowed }),
  pre_stop: hook(),
  privileged: privileged('privileged mode gives the container full access to the host'),
  profiles: allowed,
  provider: host('a provider runs a program on the server'),
  pull_policy: allowed,
  pull_refresh_after: allowed,
  read_only: allowed,
  restart: allowed,
  runtime: host('another OCI runtime may not confine the container'),
  scale: allowed,
  secrets: { access: 'allowed', items: mountReference },
  security_opt: checked('no-new-privileges:true only', checkSecurityOptions),
  shm_size: allowed,
  stdin_open: allowed,
  stop_grace_period: allowed,
  stop_signal: allowed,
  storage_opt: allowed,
  sysctls: checked('namespaced sysctls only (kernel.msg*, kernel.sem, kernel.shm*, fs.mqueue.*, net.*)', checkSysctls),
  tmpfs: allowed,
  tty: allowed,
  ulimits,
  use_api_socket: privileged('the Docker API socket is root on the host'),
  user: allowed,
  userns_mode: host(`userns_mode ${NAMESPACE_SHARED}`),
  uts: host(`uts ${NAMESPACE_SHARED}`),
  volumes,
  volumes_from: host('volumes_from mounts another container\'s volumes'),
  working_dir: allowed,
  /** Panel's own extension, validated by x-panel.ts (stored documents only). */
  'x-panel': allowed,
};

export const serviceRule = mapping(SERVICE_RULES);
