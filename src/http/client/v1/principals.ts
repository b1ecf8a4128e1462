import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import { type Principal, principalKinds, principalProviders } from '../../../db/schema/index.ts';
import { ID_MAX, ID_MIN, SHELLS, USERNAME_MAX } from '../../../domain/principals/accounts.ts';
import {
  createPrincipal,
  deletePrincipal,
  getPrincipal,
  listPrincipals,
  updatePrincipal,
  type WrittenPrincipal,
} from '../../../domain/principals/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { EnvironmentKey, errorResponses, IdParams, JsonColumn, ListQuery, listEnvelope, NoContent, refuseArrays, Uuid } from '../../schemas.ts';

const Username = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(USERNAME_MAX, `must be at most ${USERNAME_MAX} characters`),
  v.regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'must start with a letter or _ and contain only letters, digits, _ and -'),
);
/** Messages never echo the password. */
const Password = v.pipe(
  v.string('password must be a string'),
  v.minLength(1, 'password must not be empty'),
  v.maxLength(1024, 'password must be at most 1024 characters'),
);
/** An absolute path under /srv/users, without `.` or `..` segments. */
const Home = v.pipe(
  v.string(),
  v.maxLength(1024, 'must be at most 1024 characters'),
  v.regex(/^\/srv\/users(\/(?!\.\.?(\/|$))[A-Za-z0-9._-]+)+$/, 'must be a path under /srv/users/ without . or .. segments'),
);
const AccountId = v.pipe(v.number(), v.integer('must be an integer'), v.minValue(ID_MIN, `must be ${ID_MIN} to ${ID_MAX}`), v.maxValue(ID_MAX, `must be ${ID_MIN} to ${ID_MAX}`));

const Metadata = refuseArrays(
  v.strictObject(
    { home: v.optional(Home), composeAlias: v.optional(Username), databases: v.optional(v.array(EnvironmentKey(63))) },
    'unknown field (uid, gid and engine are set by Panel)',
  ),
);
const Options = refuseArrays(
  v.strictObject(
    { shell: v.optional(v.picklist(SHELLS, `must be one of ${SHELLS.join(', ')}`)), uid: v.optional(AccountId), gid: v.optional(AccountId) },
    'unknown field',
  ),
);

const WritableFields = {
  generatePassword: v.optional(v.boolean()),
  metadata: v.optional(v.nullable(Metadata)),
  options: v.optional(v.nullable(Options)),
};

const CreateBody = v.strictObject(
  {
    organizationId: Uuid,
    kind: v.picklist(principalKinds, `must be one of ${principalKinds.join(', ')}`),
    provider: v.optional(v.picklist(principalProviders, `must be one of ${principalProviders.join(', ')}`)),
    username: Username,
    password: v.optional(Password),
    projectId: v.optional(Uuid),
    managedId: v.optional(Uuid),
    ...WritableFields,
  },
  'unknown field',
);
/** username and applied username are fixed at create; kind, provider and scopes too. */
const UpdateBody = v.strictObject({ password: v.optional(v.nullable(Password)), ...WritableFields }, 'unknown field');
const ListPrincipalsQuery = v.object({ ...ListQuery, organizationId: v.optional(Uuid), projectId: v.optional(Uuid), managedId: v.optional(Uuid) });

const PrincipalSchema = v.object({
  id: v.string(),
  organizationId: v.string(),
  projectId: v.nullable(v.string()),
  managedId: v.nullable(v.string()),
  kind: v.picklist(principalKinds),
  provider: v.picklist(principalProviders),
  username: v.string(),
  appliedUsername: v.string(),
  /** Write-only: always null. */
  password: v.null(),
  hasPassword: v.boolean(),
  metadata: JsonColumn,
  options: JsonColumn,
  createdAt: v.string(),
  updatedAt: v.string(),
});
const WrittenPrincipalSchema = v.object({ ...PrincipalSchema.entries, generatedPassword: v.optional(v.string()) });

const present = (row: Principal) => ({
  id: row.id,
  organizationId: row.organizationId,
  projectId: row.projectId,
  managedId: row.managedId,
  kind: row.kind,
  provider: row.provider,
  username: row.username,
  appliedUsername: row.appliedUsername,
  password: null,
  hasPassword: row.password !== null,
  metadata: row.metadata,
  options: row.options,
  ...timestampsOf(row),
});

/** The one place a generated password is shown: the answer to the write that generated it. */
const presentWritten = ({ principal, generatedPassword }: WrittenPrincipal) =>
  generatedPassword === undefined ? present(principal) : { ...present(principal), generatedPassword };

export const principalRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/principals', detail: { tags: ['principals'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return presentWritten(createPrincipal(deps.db, deps.keyring, actor, body));
      },
      {
        body: CreateBody,
        response: { 201: WrittenPrincipalSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Create a host account (system) or a database user (database)' },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listPrincipals(deps.db, actor, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: ListPrincipalsQuery,
        response: { 200: listEnvelope(PrincipalSchema), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List principals by exactly one of organizationId, projectId, managedId' },
      },
    )
    .get('/:id', ({ actor, params }) => present(getPrincipal(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: PrincipalSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a principal (the password reads back as null)' },
    })
    .patch('/:id', ({ actor, params, body }) => presentWritten(updatePrincipal(deps.db, deps.keyring, actor, params.id, body)), {
      params: IdParams,
      body: UpdateBody,
      response: { 200: WrittenPrincipalSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
      detail: { summary: 'Change password, metadata or options; a new password rewrites its bindings' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deletePrincipal(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Delete a principal with its tenancies and bindings' },
      },
    );
