/**
 * A small Docker Engine API client for what the agent streams: container lists, inspect, log
 * streams and the event stream (logs and metrics, ARCHITECTURE.md §8). Deploys keep using the
 * Compose command line (docker-cli.ts); these reads are long-lived streams, where one process per
 * container (`docker logs -f`) would cost tens of megabytes each.
 *
 * The endpoint follows the Docker client's own variables: DOCKER_HOST `unix://` (default
 * /var/run/docker.sock) or `tcp://` (TLS with DOCKER_TLS_VERIFY / DOCKER_CERT_PATH, as the CLI).
 * `ssh://` hosts and CLI contexts are not supported here: the agent then streams no logs or
 * container metrics and says why once.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { PANEL_LABELS } from '../../compose/naming.ts';

export type EngineEndpoint = { kind: 'unix'; socketPath: string } | { kind: 'tcp'; baseUrl: string; tls?: { ca?: string; cert?: string; key?: string } };

/** The endpoint the Docker client would use, or why the agent cannot reach it itself. */
export function engineEndpoint(env: Record<string, string | undefined>): EngineEndpoint | { unsupported: string } {
  const host = env.DOCKER_HOST?.trim() || 'unix:///var/run/docker.sock';
  if (host.startsWith('unix://')) return { kind: 'unix', socketPath: host.slice('unix://'.length) };
  if (!host.startsWith('tcp://')) return { unsupported: `DOCKER_HOST ${host.split(':')[0]}:// is not supported for log and metric streams (unix:// and tcp:// are)` };
  const address = host.slice('tcp://'.length).replace(/\/+$/, '');
  const verify = env.DOCKER_TLS_VERIFY !== undefined && env.DOCKER_TLS_VERIFY !== '' && env.DOCKER_TLS_VERIFY !== '0';
  if (!verify && !env.DOCKER_CERT_PATH) return { kind: 'tcp', baseUrl: `http://${address}` };
  const certPath = env.DOCKER_CERT_PATH || join(env.HOME ?? homedir(), '.docker');
  const read = (name: string) => {
    try {
      return readFileSync(join(certPath, name), 'utf8');
    } catch {
      return undefined;
    }
  };
  return { kind: 'tcp', baseUrl: `https://${address}`, tls: { ca: read('ca.pem'), cert: read('cert.pem'), key: read('key.pem') } };
}

/** A Panel container as /containers/json lists it (the fields the agent reads). */
export interface EngineContainer {
  Id: string;
  Names: string[];
  State: string;
  Labels: Record<string, string>;
}

export interface EngineInspect {
  Id: string;
  Name: string;
  Config: { Tty: boolean; Labels: Record<string, string> | null };
  State: { Status: string; Running: boolean; Pid: number; StartedAt: string };
  HostConfig: { NetworkMode: string; LogConfig?: { Type: string } };
}

/** One /events message about a container. */
export interface EngineEvent {
  Type: string;
  Action: string;
  Actor: { ID: string; Attributes: Record<string, string> };
  time: number;
}

export class EngineError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

/** Only Panel's containers: the compiler labels every one with its environment. */
const PANEL_FILTER = encodeURIComponent(JSON.stringify({ label: [PANEL_LABELS.environmentId] }));
const EVENT_FILTER = encodeURIComponent(JSON.stringify({ type: ['container'], label: [PANEL_LABELS.environmentId] }));

export class DockerEngine {
  constructor(private readonly endpoint: EngineEndpoint) {}

  private async request(path: string, signal?: AbortSignal): Promise<Response> {
    const init: RequestInit & { unix?: string; tls?: object } = { signal };
    let url: string;
    if (this.endpoint.kind === 'unix') {
      url = `http://docker${path}`;
      init.unix = this.endpoint.socketPath;
    } else {
      url = `${this.endpoint.baseUrl}${path}`;
      if (this.endpoint.tls) init.tls = this.endpoint.tls;
    }
    const response = await fetch(url, init);
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {
        // plain text answer
      }
      throw new EngineError(response.status, `${path.split('?')[0]}: ${response.status} ${message.trim().slice(0, 300)}`);
    }
    return response;
  }

  private async json<T>(path: string, signal?: AbortSignal): Promise<T> {
    return (await (await this.request(path, signal)).json()) as T;
  }

  /** Running Panel containers (`all` adds stopped ones). */
  listPanelContainers(all = false): Promise<EngineContainer[]> {
    return this.json(`/containers/json?all=${all ? 1 : 0}&filters=${PANEL_FILTER}`);
  }

  inspect(id: string): Promise<EngineInspect> {
    return this.json(`/containers/${encodeURIComponent(id)}/json`);
  }

  /** Where images and volumes live, for the server's disk figure; null when the engine will not say. */
  async dataRoot(): Promise<string | null> {
    try {
      return (await this.json<{ DockerRootDir?: string }>('/info')).DockerRootDir ?? null;
    } catch {
      return null;
    }
  }

  /**
   * The container's log stream with timestamps, followed: from after `since` (seconds.nanos, as
   * the engine takes it), else the last `tail` lines. Multiplexed unless the container has a TTY.
   */
  async logs(id: string, from: { since: string } | { tail: number | 'all' }, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const position = 'since' in from ? `since=${from.since}` : `tail=${from.tail}`;
    const response = await this.request(`/containers/${encodeURIComponent(id)}/logs?follow=1&stdout=1&stderr=1&timestamps=1&${position}`, signal);
    return response.body!;
  }

  /** Container events of Panel's containers, from now on, until `signal` aborts or the engine closes. */
  async *events(signal: AbortSignal): AsyncGenerator<EngineEvent> {
    const response = await this.request(`/events?filters=${EVENT_FILTER}`, signal);
    const decoder = new TextDecoder();
    let pending = '';
    for await (const chunk of response.body! as unknown as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = pending.indexOf('\n')) !== -1) {
        const line = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        if (line) yield JSON.parse(line) as EngineEvent;
      }
    }
  }
}
