// The TypeScript SDK Client over Streamable HTTP: StreamableHTTPClientTransport
// against greenhouse-http on 127.0.0.1 (a free port), without and with a
// bearer token, 2025-11-25 era (initialize handshake, Mcp-Session-Id).

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { assertAsked, commonTests, elicitationTests } from './common.mjs';
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

elicitationTests('http', session);

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
