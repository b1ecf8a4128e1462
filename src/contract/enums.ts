/**
 * The closed value lists both sides agree on. The database checks them (src/db/schema), the API
 * validates and documents them, the console offers them and the daemon reports them: each list
 * is written here once. Plain arrays: importing one costs the console nothing else.
 */

/** read: member; write: admin; manage: owner. */
export const membershipRoles = ['owner', 'admin', 'member'] as const;
export type MembershipRole = (typeof membershipRoles)[number];

/** `user`: operator-created; `panel`: the one machine workspace per organization. */
export const workspaceKinds = ['user', 'panel'] as const;
export type WorkspaceKind = (typeof workspaceKinds)[number];

/** `metadata.type` of a project; `system` is written by the platform only. */
export const projectTypes = ['docker-compose', 'managed', 'template', 'system'] as const;
export type ProjectType = (typeof projectTypes)[number];
/** The project types a client may choose. */
export const clientProjectTypes = ['docker-compose', 'managed', 'template'] as const satisfies readonly ProjectType[];

/** Platform projects; their names are reserved. */
export const projectComponents = ['hosting-ingress', 'managed-ingress', 'managed-ha', 'panel'] as const;
export type ProjectComponent = (typeof projectComponents)[number];

export const containerNamings = ['uuid', 'custom'] as const;

export const hostingProtocols = ['http', 'tcp', 'udp'] as const;
export type HostingProtocol = (typeof hostingProtocols)[number];

/** Where an http hosting's certificate comes from without a tlsId: auto (ACME when the organization opted in, else internal), internal (the organization CA), none (plain http). */
export const tlsModes = ['auto', 'internal', 'none'] as const;
export type TlsMode = (typeof tlsModes)[number];

/** Where a hostname's certificate comes from on a server, and how far it got. */
export const certificateSources = ['library', 'internal', 'acme', 'none'] as const;
export type CertificateSource = (typeof certificateSources)[number];
export const certificateStatuses = ['pending', 'issued', 'failed'] as const;
export type CertificateStatus = (typeof certificateStatuses)[number];

/** A hosting's route on a server: applied, an apply queued or running, or the last apply refused. */
export const routeStatuses = ['applied', 'pending', 'failed'] as const;
export type RouteStatus = (typeof routeStatuses)[number];

/** Bind scopes of hostings and scopes of registered ips. */
export const ipScopes = ['public', 'datacenter', 'local'] as const;
export type IpScope = (typeof ipScopes)[number];

/** States Docker reports (`docker ps` `.State`), kept as-is. */
export const runtimeContainerStates = ['created', 'running', 'paused', 'restarting', 'removing', 'exited', 'dead'] as const;
/** What a daemon report may carry: a runtime state, or `unknown` for anything else. */
export const reportedContainerStates = [...runtimeContainerStates, 'unknown'] as const;
export type ReportedContainerState = (typeof reportedContainerStates)[number];
/** A container row's status: `pending` until a report lists it, then what the report said. */
export const containerStatuses = ['pending', ...reportedContainerStates] as const;
export type ContainerStatus = (typeof containerStatuses)[number];

/** `service`: workload or engine replicas; `ingress`: per-service proxy (ordinal 1); `panel`: the platform stack. */
export const containerRoles = ['service', 'ingress', 'panel'] as const;
export type ContainerRole = (typeof containerRoles)[number];

export const deploymentKinds = ['deploy', 'stop', 'destroy'] as const;
export type DeploymentKind = (typeof deploymentKinds)[number];
export const deploymentStatuses = ['queued', 'running', 'succeeded', 'failed'] as const;
export type DeploymentStatus = (typeof deploymentStatuses)[number];

export const serverStatuses = ['pending', 'connected', 'disconnected'] as const;
export type ServerStatus = (typeof serverStatuses)[number];
/** Raised by the hub, cleared by nobody but an operator: two machines present one identity. */
export const serverFlags = ['duplicate_machine_id'] as const;
export type ServerFlag = (typeof serverFlags)[number];

export const principalKinds = ['system', 'database'] as const;
export type PrincipalKind = (typeof principalKinds)[number];
export const managedEngines = ['postgres', 'mysql', 'redis', 'clickhouse'] as const;
export type ManagedEngine = (typeof managedEngines)[number];
/** `server` for host accounts, the engine for database users. */
export const principalProviders = ['server', ...managedEngines] as const;
export type PrincipalProvider = (typeof principalProviders)[number];

/** Login shells a host account may get, through the API or `x-panel.principals` (default first). */
export const shells = ['/usr/sbin/nologin', '/bin/bash', '/bin/sh', '/usr/bin/zsh', '/bin/false', '/usr/bin/bash'] as const;
export type Shell = (typeof shells)[number];
/** useradd refuses longer names; database users may use 255 characters. */
export const SYSTEM_USERNAME_MAX = 32;

/** Ways to finish a sign-in after the password. */
export const secondFactorMethods = ['totp', 'recovery', 'passkey'] as const;
export type SecondFactorMethod = (typeof secondFactorMethods)[number];
