import type { AppDeps } from '../../../deps.ts';
import { Principal, PrincipalCreate, PrincipalListQuery, PrincipalUpdate, WrittenPrincipal } from '../../../contract/principals.ts';
import type { Principal as PrincipalRow } from '../../../db/schema/index.ts';
import {
  createPrincipal,
  deletePrincipal,
  getPrincipal,
  listPrincipals,
  updatePrincipal,
  type WrittenPrincipal as Written,
} from '../../../domain/principals/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

/** The one place a generated password is shown: the answer to the write that generated it. */
const written = ({ principal, generatedPassword }: Written) => ({ ...principal, generatedPassword });

export const principalRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'principals',
    schema: Principal,
    derive: { password: () => null, hasPassword: (row: PrincipalRow) => row.password !== null },
    guard: clientGuard(deps),
    create: {
      body: PrincipalCreate,
      run: (actor, body) => written(createPrincipal(deps.db, deps.keyring, actor, body)),
      answer: WrittenPrincipal,
      summary: 'Create a host account (system) or a database user (database)',
    },
    list: {
      query: PrincipalListQuery,
      run: (actor, query) => listPrincipals(deps.db, actor, query),
      summary: 'List principals by exactly one of organizationId, projectId, managedId',
    },
    read: { run: (actor, id) => getPrincipal(deps.db, actor, id), summary: 'Read a principal (the password reads back as null)' },
    update: {
      body: PrincipalUpdate,
      run: (actor, id, body) => written(updatePrincipal(deps.db, deps.keyring, actor, id, body)),
      answer: WrittenPrincipal,
      summary: 'Change password, metadata or options; a new password rewrites its bindings',
    },
    remove: { run: (actor, id) => deletePrincipal(deps.db, actor, id), summary: 'Delete a principal with its tenancies and bindings' },
  });
