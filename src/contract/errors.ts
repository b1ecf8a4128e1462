/**
 * The closed error catalog: every code the API answers, declared once with its HTTP status and
 * the condition it names. Code throws `new DomainError(code, message, path?)` (src/lib/errors.ts)
 * and never names a status; the one mapper (src/http/errors.ts) reads the status from here, and
 * the API description lists, per operation, the codes it can answer with these conditions.
 *
 * A code answers exactly one status. Adding an error means adding its line here.
 */
import * as v from 'valibot';

interface ErrorSpec {
  readonly status: number;
  /** When the code is answered, as the API description shows it. */
  readonly when: string;
}

export const ERROR_CATALOG = {
  // 400
  invalid_json: { status: 400, when: 'the request body is not valid JSON (or nests deeper than allowed)' },
  invalid_request: { status: 400, when: 'the identity provider sent no authorization code' },
  invalid_message: { status: 400, when: 'a WebSocket message is not one this namespace accepts' },
  // 401
  unauthenticated: { status: 401, when: 'no valid session cookie, API token or daemon credential was sent' },
  invalid_credentials: { status: 401, when: 'the e-mail and password, install token or host account were refused' },
  invalid_code: { status: 401, when: 'the second-factor or recovery code of a sign-in was refused' },
  invalid_challenge: { status: 401, when: 'the sign-in challenge is invalid, expired, already used or for another ceremony' },
  passkey_invalid: { status: 401, when: 'the passkey assertion of a sign-in could not be verified' },
  invalid_join_token: { status: 401, when: 'the join token is unknown, expired, revoked or already used' },
  invalid_state: { status: 401, when: 'the sign-in state is invalid, expired, already used or from another browser' },
  access_denied: { status: 401, when: 'the identity provider did not authorize the sign-in' },
  provider_error: { status: 401, when: 'the identity provider refused the code exchange' },
  invalid_id_token: { status: 401, when: "the identity provider's ID token failed a check" },
  // 403
  forbidden: { status: 403, when: "the caller's role does not allow this, or a cookie-authenticated write came from another origin" },
  session_required: { status: 403, when: 'this needs a signed-in session, not an API token' },
  reauthentication_required: { status: 403, when: 'this needs a sign-in from the last 15 minutes' },
  invitation_email_mismatch: { status: 403, when: 'the invitation is for another e-mail address' },
  email_not_verified: { status: 403, when: 'the identity provider reports no verified e-mail address' },
  signup_disabled: { status: 403, when: 'no account has this e-mail address and sign-up is disabled' },
  // 404
  not_found: { status: 404, when: "no such resource or route; another organization's resource answers the same" },
  provider_not_configured: { status: 404, when: 'this sign-in provider is not configured' },
  // 409
  has_dependents: { status: 409, when: 'the resource is still referenced by others (restrict delete)' },
  name_in_use: { status: 409, when: 'the name is already taken in its scope' },
  project_name_in_use: { status: 409, when: 'another project of the organization has this name after trimming and case folding' },
  variable_key_in_use: { status: 409, when: 'the scope already holds a variable with this key' },
  key_prefix_in_use: { status: 409, when: 'the service already has a binding with this key prefix' },
  engine_defaults_in_use: { status: 409, when: 'another binding of the service already emits the engine defaults' },
  database_in_use: { status: 409, when: 'a binding still uses this database' },
  hostname_in_use: { status: 409, when: 'another hosting of the organization routes this hostname' },
  ordinal_in_use: { status: 409, when: 'the service already has a container with this role and ordinal' },
  tenancy_exists: { status: 409, when: 'the service already runs as this principal' },
  managed_not_allocated: { status: 409, when: 'the managed cluster has no host and port yet' },
  email_in_use: { status: 409, when: 'another account has this e-mail address' },
  account_exists: { status: 409, when: 'an account with this e-mail address exists; sign in to accept' },
  machine_is_local: { status: 409, when: "this machine is the control plane's own host; its daemon uses the local socket and does not enroll" },
  machine_already_enrolled: { status: 409, when: 'this machine is already enrolled as a server; enrolling it again needs a join token made to replace that server' },
  already_member: { status: 409, when: 'the user is already a member of the organization' },
  last_owner: { status: 409, when: 'the organization would be left without an owner' },
  account_conflict: { status: 409, when: 'this account is already linked to another account at the identity provider' },
  passkey_already_registered: { status: 409, when: 'this passkey is already registered' },
  passkey_limit_reached: { status: 409, when: 'the account holds the most passkeys it may' },
  no_passkey: { status: 409, when: 'the account has no passkey to sign in with' },
  totp_already_enabled: { status: 409, when: 'TOTP is already enabled' },
  totp_not_enabled: { status: 409, when: 'TOTP is not enabled' },
  totp_not_pending: { status: 409, when: 'no TOTP enrolment is waiting for confirmation' },
  server_placement_required: { status: 409, when: 'the environment has no server pin and the project no default server' },
  server_key_missing: { status: 409, when: "a deploy carrying secrets targets a server whose daemon key is unknown" },
  secret_unreadable: { status: 409, when: 'a stored secret cannot be opened with the current key ring' },
  not_deployed: { status: 409, when: 'the environment has not been deployed yet' },
  webhooks_disabled: { status: 409, when: 'the operator turned webhooks off (PANEL_WEBHOOK_ALLOWED_NETWORKS=none)' },
  fabric_range_exhausted: { status: 409, when: "the organization's fabric range has no free mesh address, port or subnet left; `path` names the setting to widen" },
  fabric_range_in_use: { status: 409, when: 'a fabric range cannot change while the fabric is on (mesh range) or while subnets of it are in use (container range)' },
  no_eligible_server: { status: 409, when: "the planner can place nothing: no connected server of the organization can take a service with replicas or placement" },
  // 410
  already_installed: { status: 410, when: 'Panel is already installed' },
  // 413
  payload_too_large: { status: 413, when: 'the request body is larger than the configured cap' },
  // 415
  unsupported_media_type: { status: 415, when: 'the request body is not application/json' },
  // 422
  validation_failed: { status: 422, when: 'the input does not match the schema or a rule; `path` names the field' },
  compose_invalid: { status: 422, when: 'the Compose document is not valid, or the Compose policy refuses a setting (docs/SECURITY.md); `path` names the place' },
  wrong_password: { status: 422, when: 'the current password given with the change is wrong' },
  wrong_code: { status: 422, when: 'the TOTP or recovery code given to change a second factor is wrong' },
  invalid_registration_challenge: { status: 422, when: 'the passkey registration challenge is invalid, expired or already used' },
  registration_not_verified: { status: 422, when: 'the new passkey could not be verified' },
  webhook_destination_refused: { status: 422, when: 'the webhook URL names an address outside the networks the operator allows for webhooks' },
  // 422, the placement planner's refusals (the message is the planner's own, `path` the setting)
  constraint_unsatisfiable: { status: 422, when: "no connected server satisfies a service's placement constraints" },
  colocation_conflict: { status: 422, when: 'a service sharing a namespace or volumes with another cannot land on a server it runs on' },
  host_port_conflict: { status: 422, when: 'replicas publishing one host port need distinct servers, two services of the plan bind one port on a server, a tcp/udp hosting claims an address, port and protocol something else on its server holds, a Compose save publishes one a tcp/udp hosting or the ingress holds there, or a hosting would bring an ingress to a server whose 80 or 443 Compose holds' },
  max_replicas_per_node_exceeded: { status: 422, when: 'the eligible servers cannot hold the replicas at max_replicas_per_node' },
  turbofabric_required: { status: 422, when: "the plan spans servers and needs a driver: overlay network, which the organization's overlay fabric does not provide" },
  // 429
  rate_limited: { status: 429, when: 'too many failed attempts; Retry-After says when to try again' },
  too_many_subscriptions: { status: 429, when: 'the WebSocket holds the most subscriptions it may' },
  // 500
  internal_error: { status: 500, when: 'an unexpected failure; the log line carries the request id' },
  // 501
  source_ref_unsupported: { status: 501, when: 'the deploy body names a source ref' },
  host_auth_unavailable: { status: 501, when: 'host account sign-in needs pamtester on this host' },
  // 502
  provider_unavailable: { status: 502, when: 'the identity provider cannot be reached or answered outside its protocol' },
  // 503
  install_required: { status: 503, when: 'Panel is not installed yet' },
  // 507
  insufficient_storage: { status: 507, when: "the disk holding Panel's data is full; nothing was written, and the same request succeeds once space is freed" },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
export type ErrorStatus = (typeof ERROR_CATALOG)[ErrorCode]['status'];
/** The codes answered with `status`, e.g. `CodeWithStatus<409>`. */
export type CodeWithStatus<S extends ErrorStatus> = { [C in ErrorCode]: (typeof ERROR_CATALOG)[C]['status'] extends S ? C : never }[ErrorCode];

export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

/** The placement planner's refusals (the specification's Errors): the console explains them alike. */
export const PLACEMENT_REFUSAL_CODES = [
  'no_eligible_server',
  'constraint_unsatisfiable',
  'colocation_conflict',
  'host_port_conflict',
  'max_replicas_per_node_exceeded',
  'turbofabric_required',
] as const satisfies readonly ErrorCode[];

export const statusOf = (code: ErrorCode): ErrorStatus => ERROR_CATALOG[code].status;

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CATALOG, code);

/** Every error answer has this body; `path` names the offending input field (dot-separated). */
export const ErrorBody = v.object({
  error: v.object({
    code: v.string(),
    message: v.string(),
    path: v.optional(v.string()),
    requestId: v.string(),
  }),
});
export type ErrorBody = v.InferOutput<typeof ErrorBody>;
