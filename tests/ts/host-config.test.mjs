// The host configuration entries README.md documents ("Connecting an MCP
// host"), read from the file between their markers, placeholders filled in,
// and connected through the TypeScript SDK's own transports with exactly the
// command/args/env or url/headers they hold.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { HttpServer, ROOT, assertNoSanitizerReport, opts, stdioBin, textOf, within, REQUEST_TIMEOUT_MS } from './support.mjs';

const README = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
const TOKEN = 'host-config-test-token-0123456789';
const PLACEHOLDER_BUILD = '/ABSOLUTE/PATH/TO/emcp/build';
const PLACEHOLDER_HOSTPORT = '127.0.0.1:8080';

/** The ```json block right after `<!-- host-config:NAME -->`, as text. */
function block(name) {
  const marker = `<!-- host-config:${name} -->`;
  const at = README.indexOf(marker);
  assert.ok(at >= 0, `README.md lacks ${marker}`);
  const m = /^\s*```json\n([\s\S]*?)\n```/.exec(README.slice(at + marker.length));
  assert.ok(m, `no \`\`\`json block right after ${marker}`);
  return m[1];
}

/** The build directory the tests use (GREENHOUSE_STDIO may point elsewhere than ./build). */
const buildDir = () => resolve(dirname(stdioBin()), '..', '..');

function fill(text, { port } = {}) {
  let t = text.split(PLACEHOLDER_BUILD).join(buildDir());
  if (port) t = t.split(PLACEHOLDER_HOSTPORT).join(`127.0.0.1:${port}`);
  // What the hosts expand: Claude Code ${VAR} from the environment, VS Code ${input:ID} from a prompt.
  return t.split('${GREENHOUSE_TOKEN}').join(TOKEN).split('${input:greenhouse-token}').join(TOKEN);
}

function entry(name, mapKey, opts_) {
  const config = JSON.parse(fill(block(name), opts_));
  const servers = config[mapKey];
  assert.ok(servers && servers.greenhouse, `${name}: no ${mapKey}.greenhouse`);
  return { config, server: servers.greenhouse };
}

async function exercise(client) {
  const { tools } = await client.listTools(undefined, opts);
  assert.deepEqual(tools.map((t) => t.name), ['read_sensor', 'set_vent']);
  const r = await client.callTool({ name: 'read_sensor', arguments: { sensor_id: 't1' } }, undefined, opts);
  assert.match(textOf(r), /^21\.5 C, \d+s old$/);
}

async function viaStdio(server) {
  assert.equal(typeof server.command, 'string');
  assert.ok(Array.isArray(server.args));
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: { ...getDefaultEnvironment(), ...(server.env || {}) },
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr.on('data', (c) => (log += c));
  const client = new Client({ name: 'host-config-test', version: '1.0.0' });
  await within(REQUEST_TIMEOUT_MS, 'connect', client.connect(transport, opts));
  const proc = transport._process;
  try {
    await exercise(client);
  } finally {
    await within(10_000, 'close', client.close());
    if (proc && proc.exitCode === null) proc.kill('SIGKILL');
  }
  assertNoSanitizerReport('greenhouse-stdio', log);
  assert.equal(proc.exitCode, 0, log);
}

async function viaHttp(name, mapKey) {
  const server = await HttpServer.start('--token', TOKEN);
  try {
    const { server: e } = entry(name, mapKey, { port: server.port });
    assert.equal(e.type, 'http');
    assert.equal(e.url, server.url);
    const transport = new StreamableHTTPClientTransport(new URL(e.url), { requestInit: { headers: e.headers } });
    const client = new Client({ name: 'host-config-test', version: '1.0.0' });
    await within(REQUEST_TIMEOUT_MS, 'connect', client.connect(transport, opts));
    try {
      await exercise(client);
    } finally {
      await within(10_000, 'close', client.close());
    }
    // The same entry with the token placeholder left unexpanded is refused.
    const raw = JSON.parse(block(name).split(PLACEHOLDER_HOSTPORT).join(`127.0.0.1:${server.port}`))[mapKey].greenhouse;
    const bad = new Client({ name: 'host-config-test', version: '1.0.0' });
    const t2 = new StreamableHTTPClientTransport(new URL(raw.url), { requestInit: { headers: raw.headers } });
    await assert.rejects(within(REQUEST_TIMEOUT_MS, 'connect', bad.connect(t2, opts)),
      (err) => err instanceof StreamableHTTPError && err.code === 401);
    await bad.close();
  } finally {
    await server.stop();
  }
}

test('host config (README): mcpServers stdio entry starts greenhouse-stdio through StdioClientTransport', () => {
  const { config, server } = entry('mcpservers-stdio', 'mcpServers');
  assert.deepEqual(Object.keys(config), ['mcpServers']);
  assert.equal(server.command, resolve(buildDir(), 'examples-c/greenhouse/greenhouse-stdio'));
  return viaStdio(server);
});

test('host config (README): VS Code stdio entry starts greenhouse-stdio through StdioClientTransport', () => {
  const { server } = entry('vscode-stdio', 'servers');
  assert.equal(server.type, 'stdio');
  return viaStdio(server);
});

test('host config (README): mcpServers http entry with bearer token through StreamableHTTPClientTransport', () =>
  viaHttp('mcpservers-http', 'mcpServers'));

test('host config (README): VS Code http entry with bearer token through StreamableHTTPClientTransport', async () => {
  const { config } = entry('vscode-http', 'servers');
  assert.deepEqual(config.inputs.map((i) => [i.id, i.password]), [['greenhouse-token', true]]);
  await viaHttp('vscode-http', 'servers');
});
