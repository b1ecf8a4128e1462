import type { AppDeps } from '../../../deps.ts';
import { Variable, VariableCreate, VariableListQuery, VariableUpdate, WrittenVariable } from '../../../contract/variables.ts';
import type { Variable as VariableRow } from '../../../db/schema/index.ts';
import {
  createVariable,
  deleteVariable,
  getVariable,
  listVariables,
  updateVariable,
  type WrittenVariable as Written,
} from '../../../domain/variables/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

/** The one place a generated secret is shown: the answer to the write that generated it. */
const written = ({ variable, generatedValue }: Written) => ({ ...variable, generatedValue });

export const variableRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'variables',
    schema: Variable,
    derive: {
      value: (row: VariableRow) => (row.isSecret ? null : row.value),
      forBuild: (row: VariableRow) => row.isForBuild,
      forRuntime: (row: VariableRow) => row.isForRuntime,
    },
    guard: clientGuard(deps),
    create: {
      body: VariableCreate,
      run: (actor, body) => written(createVariable(deps.db, deps.keyring, actor, body)),
      answer: WrittenVariable,
      errors: ['variable_key_in_use'],
      summary: 'Create a variable at exactly one scope',
    },
    list: {
      query: VariableListQuery,
      run: (actor, query) => listVariables(deps.db, actor, query),
      summary: 'List the variables of one scope parent (exactly one scope parameter)',
    },
    read: { run: (actor, id) => getVariable(deps.db, actor, id), summary: 'Read a variable (secret values read back as null)' },
    update: {
      body: VariableUpdate,
      run: (actor, id, body) => written(updateVariable(deps.db, deps.keyring, actor, id, body)),
      answer: WrittenVariable,
      summary: 'Change a variable; binding-owned variables answer 403',
    },
    remove: { run: (actor, id) => deleteVariable(deps.db, actor, id), summary: 'Delete a variable; binding-owned variables answer 403' },
  });
