/**
 * The variables of one scope (organization, workspace, project, environment or service): the
 * scope's own rows, editable unless a binding owns them, and the rows it inherits from each
 * wider scope, labelled with where they come from and whether this scope overrides them.
 * Secret values are never shown (the API answers null for them). Members of the organization
 * see the rows without the controls that change them.
 */
import { useState } from 'preact/hooks';
import { RowActions } from '../row-actions.tsx';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { ConfirmDialog } from '../confirm-dialog.tsx';
import { deployApi, type ScopeQuery, type Variable, type VariableScope } from '../deploy-api.ts';
import { allPages } from '../principals-api.ts';
import { ReadOnlyNote, useCanWrite } from '../role.tsx';
import { Link } from '../router.tsx';
import { GeneratedSecretPanel, VariableForm } from './variable-form.tsx';

export interface ScopeRef {
  scope: VariableScope;
  id: string;
  /** "organization Acme", "project shop": how a row's origin is named. */
  label: string;
  href?: string;
}

const scopeQuery = (ref: { scope: VariableScope; id: string }): ScopeQuery => ({ [`${ref.scope}Id`]: ref.id });

/** A row's key (with its description under it), value (never a secret's) and delivery flags. */
function VariableCells({ variable }: { variable: Variable }) {
  const flags = [variable.forRuntime && 'runtime', variable.forBuild && 'build', variable.isLiteral && 'literal'].filter(Boolean);
  return (
    <>
      <th scope="row">
        <code>{variable.key}</code>
        {variable.description && <span class="cell-note">{variable.description}</span>}
      </th>
      <td>{variable.isSecret ? <span class="muted">Secret (write-only)</span> : <code class="value">{variable.value}</code>}</td>
      <td>
        <span>{flags.join(', ') || 'not delivered'}</span>
      </td>
    </>
  );
}

/** "the organization or the workspace": the wider scopes, named as a row's origin is. */
const joinedLabels = (scopes: ScopeRef[]) => (scopes.length < 2 ? (scopes[0]?.label ?? '') : `${scopes.slice(0, -1).map((ref) => ref.label).join(', ')} or ${scopes.at(-1)!.label}`);

/**
 * What the page's scope inherits: every variable of each wider scope (all pages, nearest scope
 * first), labelled with where it comes from and whether this scope overrides it; when there is
 * none, that in words.
 */
function InheritedVariables({ scope, ancestors, overridden }: { scope: ScopeRef; ancestors: ScopeRef[]; overridden: Set<string> }) {
  const inherited = useResource(`inherited-variables:${ancestors.map((ref) => `${ref.scope}:${ref.id}`).join(',')}`, () =>
    Promise.all(
      [...ancestors].reverse().map(async (from) => ({ from, variables: await allPages((cursor) => deployApi.variables.list({ ...scopeQuery(from), cursor })) })),
    ),
  );
  if (inherited.error) return <LoadFailed error={inherited.error} what="inherited variables" retry={inherited.reload} />;
  if (!inherited.data) return <Loading what="inherited variables" />;
  const rows = inherited.data.flatMap(({ from, variables }) => variables.map((variable) => ({ from, variable })));
  if (rows.length === 0) return <p class="muted">None: no variable is set on {joinedLabels(ancestors)}.</p>;
  return (
    <>
      <p class="muted">Set on wider scopes; a key set here overrides them.</p>
      <div class="table-scroll">
        <table aria-label={`Variables inherited by ${scope.label}`}>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Value</th>
              <th scope="col">Delivered</th>
              <th scope="col">Comes from</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ from, variable }) => (
              <tr key={variable.id} class={overridden.has(variable.key) ? 'overridden' : undefined}>
                <VariableCells variable={variable} />
                <td>
                  From {from.href ? <Link href={from.href}>{from.label}</Link> : from.label}
                  {overridden.has(variable.key) && <span class="badge">Overridden here</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

interface VariablesSectionProps {
  organizationId: string;
  scope: ScopeRef;
  ancestors: ScopeRef[];
  headingLevel?: 2 | 3;
}

export function VariablesSection({ organizationId, scope, ancestors, headingLevel = 2 }: VariablesSectionProps) {
  const writable = useCanWrite(organizationId);
  const own = useList(`variables:${scope.scope}:${scope.id}`, (cursor) => deployApi.variables.list({ ...scopeQuery(scope), cursor }));
  const [editing, setEditing] = useState<Variable | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Variable | null>(null);
  const [generated, setGenerated] = useState<{ key: string; value: string } | null>(null);
  const headingId = `variables-heading-${scope.scope}`;
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const ownKeys = new Set((own.data ?? []).map((variable) => variable.key));

  return (
    <section aria-labelledby={headingId} class="variables">
      <Heading id={headingId}>Variables</Heading>
      {generated && <GeneratedSecretPanel variableKey={generated.key} value={generated.value} onDismiss={() => setGenerated(null)} />}
      <ListView list={own} what="variables" empty={`No variables are set on this ${scope.scope}.`}>
        {(rows) => (
          <div class="table-scroll">
            <table aria-label={`Variables of ${scope.label}`}>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Value</th>
                  <th scope="col">Delivered</th>
                  {writable && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((variable) => (
                  <tr key={variable.id}>
                    <VariableCells variable={variable} />
                    {writable && (
                      <td>
                        {variable.bindingId ? (
                          <span class="badge" title="Owned by a database binding; change the binding instead.">
                            Binding (read-only)
                          </span>
                        ) : (
                          <RowActions name={variable.key} onEdit={() => setEditing(variable)} onRemove={() => setDeleting(variable)} />
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListView>
      {!writable ? (
        <ReadOnlyNote action="change variables" />
      ) : editing ? (
        <VariableForm
          key={editing === 'new' ? 'new' : editing.id}
          scope={scopeQuery(scope)}
          editing={editing === 'new' ? undefined : editing}
          onCancel={() => setEditing(null)}
          onSaved={(written) => {
            setEditing(null);
            if (written.generatedValue !== undefined) setGenerated({ key: written.key, value: written.generatedValue });
            own.reload();
          }}
        />
      ) : (
        <button type="button" onClick={() => setEditing('new')}>
          Add variable
        </button>
      )}
      {ancestors.length > 0 && (
        <>
          <h3>Inherited</h3>
          <InheritedVariables scope={scope} ancestors={ancestors} overridden={ownKeys} />
        </>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.key}?`}
          confirmLabel="Delete variable"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await deployApi.variables.remove(deleting.id);
            own.reload();
          }}
        >
          <p>Deployments made after this no longer receive {deleting.key} from this {scope.scope}.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
