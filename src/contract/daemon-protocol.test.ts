import { describe, expect, test } from 'bun:test';
import { CLOSE_CODES, encodeFrame, type Frame, FrameError, MAX_FRAME_BYTES, parseFrame } from './daemon-protocol.ts';

const SERVER_ID = '0196a4f2-8e1c-7b3d-9f00-1234567890ab';
const DEPLOYMENT_ID = '0196a4f2-8e1c-7b3d-9f00-0000000000d1';

/** One valid example of every frame (and of every command kind and result outcome). */
const VALID_FRAMES: Record<string, Frame> = {
  hello: {
    type: 'hello',
    hostname: 'web-1',
    serverId: SERVER_ID,
    machineId: '4c4c4544004d3510804ab4c04f4e3232',
    version: '0.1.0',
    docker: { version: '20.10.24', composeVersion: '2.26.1' },
  },
  'hello (local, first connection)': {
    type: 'hello',
    hostname: 'panel-host',
    machineId: 'm-1',
    version: '0.1.0',
    docker: { version: null, composeVersion: null },
    daemonKey: { keyId: 'dk_abc', publicKey: 'x'.repeat(43) },
  },
  welcome: { type: 'welcome', serverId: SERVER_ID },
  'command deploy': {
    type: 'command',
    id: 'cmd-1',
    kind: 'deploy',
    payload: {
      deploymentId: DEPLOYMENT_ID,
      project: 'shop_web-2',
      compose: 'services:\n  web:\n    image: local/busybox:1\n',
      secrets: [{ name: 'db_password.txt', envelope: `pndaemon.v1.${SERVER_ID}.dk_abc.AAAA` }],
      policy: { hostAccess: false, platform: false },
    },
  },
  'command stop': { type: 'command', id: 'cmd-2', kind: 'stop', payload: { deploymentId: DEPLOYMENT_ID, project: 'shop' } },
  'command destroy': { type: 'command', id: 'cmd-3', kind: 'destroy', payload: { deploymentId: DEPLOYMENT_ID, project: 'shop' } },
  ack: { type: 'ack', id: 'cmd-1' },
  'result ok': { type: 'result', id: 'cmd-1', ok: true, data: { containers: 2 } },
  'result ok without data': { type: 'result', id: 'cmd-1', ok: true },
  'result failed': { type: 'result', id: 'cmd-1', ok: false, error: { code: 'compose_invalid', message: 'bad' } },
  report: {
    type: 'report',
    commandId: 'cmd-1',
    project: 'shop',
    containers: [
      { containerId: 'a1b2c3', name: 'shop-web-1', service: 'web', state: 'running', status: 'Up 2 seconds', labels: { a: 'b' } },
      { containerId: 'd4e5f6', name: 'shop-worker-1', service: 'worker', state: 'unknown' },
    ],
  },
  'report (empty)': { type: 'report', project: 'shop', containers: [] },
  ping: { type: 'ping', ts: 1767225600000 },
  pong: { type: 'pong', ts: 1767225600000 },
};

function refusal(text: string): FrameError {
  try {
    parseFrame(text);
  } catch (error) {
    if (error instanceof FrameError) return error;
    throw error;
  }
  throw new Error(`accepted ${text.slice(0, 80)}`);
}

describe('parseFrame', () => {
  test.each(Object.entries(VALID_FRAMES))('accepts a valid %s frame and round-trips it', (_name, frame) => {
    expect(parseFrame(encodeFrame(frame))).toEqual(frame);
  });

  test.each(['up', 'Running', '', 7, null, undefined])('a reported state outside the list (%p) reads as unknown', (state) => {
    const frame = parseFrame(JSON.stringify({ type: 'report', project: 'p', containers: [{ containerId: 'a', name: 'n', service: 's', state }] }));
    expect(frame).toMatchObject({ containers: [{ state: 'unknown' }] });
  });

  test('ignores unknown keys so a newer peer can add fields', () => {
    expect(parseFrame('{"type":"ping","ts":1,"extra":true}')).toEqual({ type: 'ping', ts: 1 });
  });

  test.each(['', 'not json', '{"type":', '[1,2]', 'null', '42'])('refuses malformed text %p with 4000', (text) => {
    const error = refusal(text);
    expect(error.closeCode).toBe(CLOSE_CODES.malformedFrame);
    expect(error.closeReason.length).toBeGreaterThan(0);
  });

  test('refuses an unknown frame type with a reason naming it', () => {
    const error = refusal('{"type":"shutdown"}');
    expect(error.closeCode).toBe(CLOSE_CODES.malformedFrame);
    expect(error.closeReason).toStartWith('invalid shutdown frame');
  });

  test.each([
    ['hello without machineId', { ...VALID_FRAMES.hello, machineId: undefined }],
    ['hello with a non-uuid serverId', { ...VALID_FRAMES.hello, serverId: 'server-1' }],
    ['ack without id', { type: 'ack' }],
    ['ping with a string ts', { type: 'ping', ts: '1' }],
    ['result ok:false without error', { type: 'result', id: 'c', ok: false }],
  ])('refuses %s with 4000', (_name, frame) => {
    expect(refusal(JSON.stringify(frame)).closeCode).toBe(CLOSE_CODES.malformedFrame);
  });

  test('a close reason fits the 123-byte WebSocket limit even for a long hostile type', () => {
    const reason = refusal(JSON.stringify({ type: 'é'.repeat(500) })).closeReason;
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(123);
  });

  describe('commands', () => {
    const deploy = VALID_FRAMES['command deploy'] as Extract<Frame, { kind: 'deploy' }>;
    const withPayload = (payload: object) => JSON.stringify({ ...deploy, payload: { ...deploy.payload, ...payload } });

    test.each([
      ['an unknown kind', JSON.stringify({ ...deploy, kind: 'restart' })],
      ['an upper-case project', withPayload({ project: 'Shop' })],
      ['a project starting with -', withPayload({ project: '-shop' })],
      ['a 64-character project', withPayload({ project: 'a'.repeat(64) })],
      ['a secret name with a slash', withPayload({ secrets: [{ name: '../etc/passwd', envelope: 'x' }] })],
      ['a secret named ..', withPayload({ secrets: [{ name: '..', envelope: 'x' }] })],
      ['a duplicate secret name', withPayload({ secrets: [{ name: 'a', envelope: 'x' }, { name: 'a', envelope: 'y' }] })],
      ['a stop without deploymentId', JSON.stringify({ type: 'command', id: 'cmd-9', kind: 'stop', payload: { project: 'p' } })],
      ['a policy whose host access is not a boolean', withPayload({ policy: { hostAccess: 'yes', platform: false } })],
      ['a policy without platform', withPayload({ policy: { hostAccess: true } })],
    ])('refuses a command with %s, keeping its id so it can be answered', (_name, text) => {
      const error = refusal(text);
      expect(error.closeCode).toBe(CLOSE_CODES.malformedFrame);
      expect(error.commandId).toBe(JSON.parse(text).id);
    });

    test('a deploy without a policy (queued by an older control plane) is read; the daemon then holds it to the tenant policy', () => {
      const { policy: _policy, ...payload } = deploy.payload;
      expect(parseFrame(JSON.stringify({ ...deploy, payload }))).toMatchObject({ kind: 'deploy', payload: { project: 'shop_web-2' } });
    });

    test('a command with an unreadable id has no id to answer', () => {
      expect(refusal(JSON.stringify({ ...deploy, id: 'has space' })).commandId).toBeUndefined();
    });

    test('a 63-character project is the longest accepted', () => {
      expect(parseFrame(withPayload({ project: 'a'.repeat(63) }))).toMatchObject({ payload: { project: 'a'.repeat(63) } });
    });
  });

  describe('size limit', () => {
    const pingOfBytes = (bytes: number, char = 'a') => {
      const base = '{"type":"ping","ts":1,"pad":""}';
      return `${base.slice(0, -2)}${char.repeat(bytes - base.length)}"}`;
    };

    test('accepts a frame of exactly MAX_FRAME_BYTES', () => {
      expect(pingOfBytes(MAX_FRAME_BYTES)).toHaveLength(MAX_FRAME_BYTES);
      expect(parseFrame(pingOfBytes(MAX_FRAME_BYTES))).toEqual({ type: 'ping', ts: 1 });
    });

    test('refuses one byte more with 4001', () => {
      expect(refusal(pingOfBytes(MAX_FRAME_BYTES + 1)).closeCode).toBe(CLOSE_CODES.frameTooLarge);
    });

    test('counts UTF-8 bytes, not characters', () => {
      const multiByte = `{"type":"ping","ts":1,"pad":"${'€'.repeat(MAX_FRAME_BYTES / 3)}"}`;
      expect(multiByte.length).toBeLessThan(MAX_FRAME_BYTES);
      expect(refusal(multiByte).closeCode).toBe(CLOSE_CODES.frameTooLarge);
    });

    test('refuses before parsing: an oversized non-JSON frame is "too large", not "malformed"', () => {
      expect(refusal('x'.repeat(MAX_FRAME_BYTES + 1)).closeCode).toBe(CLOSE_CODES.frameTooLarge);
    });
  });
});

describe('encodeFrame', () => {
  test('refuses to produce a frame the peer would refuse', () => {
    const huge: Frame = { type: 'report', project: 'p', containers: [{ containerId: 'a', name: 'n', service: 's', state: 'running', status: 'x'.repeat(MAX_FRAME_BYTES) }] };
    expect(() => encodeFrame(huge)).toThrow(FrameError);
  });
});
