/**
 * "This machine" on the Servers page: whether Panel's own host is connected as the organization's
 * local server. When it is not, it says why in words and shows the one command that fixes it
 * (GET /servers/this-machine). Asked again every 5 s while not connected, and whenever the live
 * server list changes, so starting Docker turns it connected without a reload.
 */
import { useEffect, useState } from 'preact/hooks';
import { CopyableCommand } from '../confirm-dialog.tsx';
import { deployApi, type ThisMachine } from '../deploy-api.ts';

const RECHECK_MS = 5_000;

export function ThisMachineCard({ organizationId, serversVersion }: { organizationId: string; serversVersion: unknown }) {
  const [machine, setMachine] = useState<ThisMachine | null>(null);
  useEffect(() => {
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () =>
      deployApi.servers.thisMachine(organizationId).then(
        (answer) => {
          if (!current) return;
          setMachine(answer);
          if (answer.applies && answer.state !== 'connected') timer = setTimeout(check, RECHECK_MS);
        },
        () => current && (timer = setTimeout(check, RECHECK_MS)),
      );
    void check();
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [organizationId, serversVersion]);

  if (!machine?.applies) return null;
  if (machine.state === 'connected') {
    return (
      <section aria-labelledby="this-machine-heading" class="card" data-this-machine="connected">
        <h2 id="this-machine-heading">This machine</h2>
        <p>
          Panel's own host is connected as <strong>{machine.name}</strong>: choose it as an environment's server (or a project's default server) to deploy here.
        </p>
      </section>
    );
  }
  return (
    <section aria-labelledby="this-machine-heading" class="card" data-this-machine={machine.state}>
      <h2 id="this-machine-heading">This machine is not connected</h2>
      <p>{machine.problem}</p>
      {machine.fix && (
        <>
          <p>Run this on the machine Panel runs on:</p>
          <CopyableCommand text={machine.fix} label="Command that fixes it" />
        </>
      )}
    </section>
  );
}
