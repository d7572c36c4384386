// The TypeScript SDK Client over Streamable HTTP: StreamableHTTPClientTransport
// against greenhouse-http on 127.0.0.1 (a free port), without and with a
// bearer token, 2025-11-25 era (initialize handshake, Mcp-Session-Id).

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { commonTests } from './common.mjs';
import { HttpServer, httpClient, opts, probeHttp, textOf } from './support.mjs';

const TOKEN = 'greenhouse-test-token-0123456789';
const BEARER = { Authorization: `Bearer ${TOKEN}` };

/** A fresh greenhouse-http with `serverArgs` and one connected client; both stopped after fn. */
async function session(fn, { serverArgs = [], headers, capabilities, setup } = {}) {
  const server = await HttpServer.start(...serverArgs);
  try {
    const s = await httpClient(server.url, { headers, capabilities, setup });
    try {
      await fn({ ...s, server });
    } finally {
      await s.close();
    }
  } finally {
    await server.stop();
  }
}

async function probeWith(serverArgs, headers, name, args) {
  const server = await HttpServer.start(...serverArgs);
  try {
    return await probeHttp(server.url, name, args, headers);
  } finally {
    await server.stop();
  }
}

commonTests('http', (fn) => session(fn), (n, a) => probeWith([], {}, n, a));
commonTests('http+bearer', (fn) => session(fn, { serverArgs: ['--token', TOKEN], headers: BEARER }),
  (n, a) => probeWith(['--token', TOKEN], BEARER, n, a));

/** Connecting to a --token server with `headers`: the StreamableHTTPError the SDK throws. */
async function refused(headers) {
  const server = await HttpServer.start('--token', TOKEN);
  try {
    let err;
    try {
      const s = await httpClient(server.url, { headers });
      await s.close();
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof StreamableHTTPError, `expected StreamableHTTPError, got ${err}`);
    return err;
  } finally {
    await server.stop();
  }
}

test('http+bearer: a wrong token is refused with 401', async () => {
  const e = await refused({ Authorization: 'Bearer not-the-token' });
  assert.equal(e.code, 401, e.message);
});

test('http+bearer: no token is refused with 401', async () => {
  const e = await refused(undefined);
  assert.equal(e.code, 401, e.message);
});

// set_vent above 80 % asks for a confirmation: over Streamable HTTP the
// binding sends the 2025-11-25 elicitation/create on the call's SSE stream.
const ELICIT_MESSAGE = 'Open the roof vent to 90%? Above 80% wind and rain can get in.';

function elicitingSession(answer, fn) {
  const asked = [];
  return session((s) => fn(s, asked), {
    capabilities: { elicitation: { form: {} } },
    setup: (client) => client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params);
      return answer;
    }),
  });
}

function assertAsked(asked) {
  assert.equal(asked.length, 1, JSON.stringify(asked));
  assert.equal(asked[0].message, ELICIT_MESSAGE);
  assert.deepEqual(asked[0].requestedSchema.required, ['confirm']);
  assert.equal(asked[0].requestedSchema.properties.confirm.type, 'boolean');
}

test('http: set_vent 90, elicitation accepted -> vent set', () =>
  elicitingSession({ action: 'accept', content: { confirm: true } }, async ({ client }, asked) => {
    const r = await client.callTool({ name: 'set_vent', arguments: { percent: 90 } }, undefined, opts);
    assertAsked(asked);
    assert.equal(r.isError, false, textOf(r));
    assert.equal(textOf(r), 'vent set to 90%');
    assert.deepEqual(r.structuredContent, { ok: true, percent: 90 });
  }));

test('http: set_vent 90, elicitation accepted with confirm false -> not confirmed', () =>
  elicitingSession({ action: 'accept', content: { confirm: false } }, async ({ client }, asked) => {
    const r = await client.callTool({ name: 'set_vent', arguments: { percent: 90 } }, undefined, opts);
    assertAsked(asked);
    assert.equal(r.isError, true);
    assert.equal(textOf(r), 'not confirmed: vent unchanged');
  }));

test('http: set_vent 90, elicitation declined -> not confirmed', () =>
  elicitingSession({ action: 'decline' }, async ({ client }, asked) => {
    const r = await client.callTool({ name: 'set_vent', arguments: { percent: 90 } }, undefined, opts);
    assertAsked(asked);
    assert.equal(r.isError, true);
    assert.equal(textOf(r), 'not confirmed: vent unchanged');
  }));

test('http: set_vent 90, elicitation cancelled -> not confirmed', () =>
  elicitingSession({ action: 'cancel' }, async ({ client }, asked) => {
    const r = await client.callTool({ name: 'set_vent', arguments: { percent: 90 } }, undefined, opts);
    assertAsked(asked);
    assert.equal(r.isError, true);
    assert.equal(textOf(r), 'not confirmed: vent unchanged');
  }));

test('http+bearer: set_vent 90, elicitation accepted -> vent set', () => {
  const asked = [];
  return session(async ({ client }) => {
    const r = await client.callTool({ name: 'set_vent', arguments: { percent: 90 } }, undefined, opts);
    assertAsked(asked);
    assert.deepEqual(r.structuredContent, { ok: true, percent: 90 });
  }, {
    serverArgs: ['--token', TOKEN], headers: BEARER, capabilities: { elicitation: {} },
    setup: (client) => client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params);
      return { action: 'accept', content: { confirm: true } };
    }),
  });
});
