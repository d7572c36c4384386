// The TypeScript SDK Client over stdio: StdioClientTransport spawns
// greenhouse-stdio (2025-11-25 era, initialize handshake).

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { commonTests } from './common.mjs';
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

// GAP (issue 18 item 4), not a feature: over stdio the core cannot send a
// 2025-11-25 server-to-client elicitation/create, so set_vent above 80 % is
// refused even though this client declares elicitation and would accept.
// When the gap is closed this test fails: replace it with the accept/decline/
// cancel tests of http.test.mjs.
test('stdio: GAP issue 18 item 4 - set_vent 90 needs elicitation, refused over stdio (documents a gap)', () => {
  let asked = 0;
  return session(async ({ client }) => {
    const r = await client.callTool({ name: 'set_vent', arguments: { percent: 90 } }, undefined, opts);
    assert.equal(r.isError, true);
    assert.equal(textOf(r), 'refused: opening above 80% needs a confirmation this client cannot give');
    assert.equal(asked, 0, 'the server sent elicitation/create over stdio: the gap is closed, update this test');
  }, {
    capabilities: { elicitation: { form: {} } },
    setup: (client) => client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: 'accept', content: { confirm: true } };
    }),
  });
});

test('stdio: --wind-lock refuses set_vent with isError text', () =>
  session(async ({ client }) => {
    const r = await client.callTool({ name: 'set_vent', arguments: { percent: 10 } }, undefined, opts);
    assert.equal(r.isError, true);
    assert.equal(textOf(r), 'refused: wind lock active');
  }, { args: ['--wind-lock'] }));
