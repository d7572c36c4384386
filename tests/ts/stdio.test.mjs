// The TypeScript SDK Client over stdio: StdioClientTransport spawns
// greenhouse-stdio (2025-11-25 era, initialize handshake).

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { commonTests, elicitationTests } from './common.mjs';
import { opts, probeStdio, stdioClient, textOf } from './support.mjs';

async function session(fn, options) {
  const s = await stdioClient(options);
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

commonTests('stdio', session, probeStdio);

elicitationTests('stdio', session);

test('stdio: --wind-lock refuses set_vent with isError text', () =>
  session(async ({ client }) => {
    const r = await client.callTool({ name: 'set_vent', arguments: { percent: 10 } }, undefined, opts);
    assert.equal(r.isError, true);
    assert.equal(textOf(r), 'refused: wind lock active');
  }, { args: ['--wind-lock'] }));
