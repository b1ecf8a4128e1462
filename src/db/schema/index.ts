/**
 * The whole schema, one table per file. Exported in dependency order: drizzle-kit creates the
 * tables in this order, and SQLite runs the ON DELETE actions of the most recently created child
 * table first, which matters for organization -> workspace (cascade) -> project (restrict):
 * project must be created after workspace so an organization delete clears projects first.
 */
export type { JsonObject } from './columns.ts';
/** The closed value lists the tables check (src/contract/enums.ts). */
export * from '../../contract/enums.ts';
export * from './organization.ts';
export * from './user.ts';
export * from './membership.ts';
export * from './session.ts';
export * from './server.ts';
export * from './repository.ts';
export * from './tls.ts';
export * from './certificate_authority.ts';
export * from './ip.ts';
export * from './datacenter.ts';
export * from './storage.ts';
export * from './managed.ts';
export * from './replica.ts';
export * from './workspace.ts';
export * from './project.ts';
export * from './environment.ts';
export * from './deployment.ts';
export * from './service.ts';
export * from './hosting.ts';
export * from './hostname.ts';
export * from './container.ts';
export * from './principal.ts';
export * from './tenancy.ts';
export * from './binding.ts';
export * from './variable.ts';
export * from './tag.ts';
export * from './marker.ts';
export * from './consumed_challenge.ts';
export * from './api_token.ts';
export * from './user_totp.ts';
export * from './recovery_code.ts';
export * from './passkey.ts';
export * from './oauth_identity.ts';
export * from './invitation.ts';
export * from './rate_limit.ts';
export * from './join_token.ts';
export * from './daemon_command.ts';
export * from './log_chunk.ts';
export * from './deployment_log.ts';
export * from './metric.ts';
export * from './event.ts';
export * from './webhook.ts';
export * from './ingress.ts';
export * from './fabric.ts';
export * from './table_change.ts';
