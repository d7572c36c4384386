// The official TypeScript SDK client through emcp-bridge to the greenhouse
// firmware on its UART under QEMU (Cortex-M4F and Cortex-M0), started with
// exactly the command and arguments of README.md's VS Code entries (the port
// or the serial device filled in), 2025-11-25 era: list, both tools with good
// and bad arguments, a resource; then the firmware killed and restarted in
// the middle of a session. Not a *.test.mjs: it needs the firmware built, so
// scripts/test.d/42-bridge.sh runs it (node --test firmware-bridge.mjs), not
// 12-ts-sdk.sh.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

import { ROOT, assertNoSanitizerReport, textOf, within, REQUEST_TIMEOUT_MS } from './support.mjs';

const README = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
const BUILD = process.env.EMCP_BUILD_DIR || resolve(ROOT, 'build');
const FIRMWARE_DIR = process.env.EMCP_FIRMWARE_DIR || resolve(ROOT, 'build', 'firmware');
const GONE = -32000; // EMCP_BRIDGE_RPC_GONE, tools/bridge/bridge.h
const opts = { timeout: REQUEST_TIMEOUT_MS };

function entry(name, { port }) {
  const marker = `<!-- host-config:${name} -->`;
  const at = README.indexOf(marker);
  assert.ok(at >= 0, `README.md lacks ${marker}`);
  const m = /^\s*```json\n([\s\S]*?)\n```/.exec(README.slice(at + marker.length));
  assert.ok(m, `no json block after ${marker}`);
  assert.ok(m[1].includes('127.0.0.1:5555'), `${name}: no port placeholder`);
  const text = m[1].split('/ABSOLUTE/PATH/TO/emcp/build').join(BUILD).split('127.0.0.1:5555').join(`127.0.0.1:${port}`);
  const server = JSON.parse(text).servers.greenhouse;
  assert.equal(server.type, 'stdio');
  return server;
}

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** QEMU listening on the port, seen in /proc/net/tcp (no probe connection). */
async function listening(port, proc, log) {
  const want = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (let i = 0; i < 400; i++) {
    assert.equal(proc.exitCode, null, `QEMU exited:\n${log()}`);
    const rows = readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1).map((l) => l.trim().split(/\s+/));
    if (rows.some((r) => r[1]?.endsWith(want) && r[3] === '0A')) return;
    await sleep(50);
  }
  assert.fail(`QEMU not listening on ${port}:\n${log()}`);
}

class Firmware {
  constructor(target, port) {
    this.target = target;
    this.port = port;
    this.err = '';
  }

  async start() {
    const elf = resolve(FIRMWARE_DIR, this.target, `fw-${this.target}-uart.elf`);
    assert.ok(existsSync(elf), `${elf} is missing: scripts/run-firmware --target ${this.target} builds it`);
    this.proc = spawn(resolve(ROOT, 'scripts/run-firmware'), ['--target', this.target, '--uart', `tcp:${this.port}`, '--no-build'],
      { stdio: ['ignore', 'ignore', 'pipe'] });
    this.proc.stderr.on('data', (c) => (this.err += c));
    this.exited = new Promise((r) => this.proc.once('exit', r));
    await listening(this.port, this.proc, () => this.err);
  }

  async kill() {
    if (this.proc && this.proc.exitCode === null && this.proc.signalCode === null) {
      this.proc.kill('SIGKILL');
      await this.exited;
    }
  }
}

async function session(target, fn) {
  const fw = new Firmware(target, await freePort());
  await fw.start();
  const server = entry('vscode-bridge-qemu', { port: fw.port });
  const transport = new StdioClientTransport({
    command: server.command, args: server.args, env: getDefaultEnvironment(), stderr: 'pipe',
  });
  let log = '';
  transport.stderr.on('data', (c) => (log += c));
  const client = new Client({ name: 'emcp-ts-bridge-test', version: '1.0.0' });
  try {
    await within(REQUEST_TIMEOUT_MS, 'connect', client.connect(transport, opts));
    const proc = transport._process;
    await fn({ client, fw, log: () => log });
    await within(10_000, 'close', client.close());
    assert.ok(log.includes('stdin closed; exiting'), `the bridge did not exit on stdin EOF:\n${log}`);
    assertNoSanitizerReport('emcp-bridge', log);
    assert.notEqual(proc, undefined);
    return { log, audit: fw.err.split('\n').filter((l) => l.startsWith('audit: ')) };
  } finally {
    await fw.kill();
  }
}

for (const target of ['m4f', 'm0']) {
  test(`bridge to the ${target} firmware: list, tools with good and bad arguments, a resource`, async () => {
    const { audit } = await session(target, async ({ client }) => {
      assert.deepEqual(client.getServerVersion().name, 'greenhouse-gw');
      const { tools } = await client.listTools(undefined, opts);
      assert.deepEqual(tools.map((t) => t.name), ['read_sensor', 'set_vent']);
      let r = await client.callTool({ name: 'read_sensor', arguments: { sensor_id: 't2' } }, undefined, opts);
      assert.equal(r.isError, false);
      assert.equal(r.structuredContent.value, 34.1);
      r = await client.callTool({ name: 'read_sensor', arguments: { sensor_id: 't9' } }, undefined, opts);
      assert.equal(r.isError, true);
      assert.equal(textOf(r), 'sensor_id: "t9" is not one of t1, t2, rh1, soil1');
      r = await client.callTool({ name: 'set_vent', arguments: { percent: 30 } }, undefined, opts);
      assert.deepEqual(r.structuredContent, { ok: true, percent: 30 });
      r = await client.callTool({ name: 'set_vent', arguments: { percent: -1 } }, undefined, opts);
      assert.equal(r.isError, true);
      assert.equal(textOf(r), 'percent: -1 is below minimum 0');
      const { resources } = await client.listResources(undefined, opts);
      assert.deepEqual(resources.map((x) => x.uri), ['greenhouse://sensors']);
      const one = await client.readResource({ uri: 'greenhouse://sensors/t1' }, opts);
      assert.equal(JSON.parse(one.contents[0].text).id, 't1');
    });
    assert.deepEqual(audit.map((l) => / tool=(\S+) .* outcome=(\S+)/.exec(l).slice(1)),
      [['read_sensor', 'ok'], ['read_sensor', 'invalid_arguments'], ['set_vent', 'ok'], ['set_vent', 'invalid_arguments']]);
  });

  test(`bridge to the ${target} firmware: reset mid-session, the request in flight fails with its id, the next succeeds`, async () => {
    const { log } = await session(target, async ({ client, fw }) => {
      let r = await client.callTool({ name: 'read_sensor', arguments: { sensor_id: 't1' } }, undefined, opts);
      assert.equal(r.structuredContent.value, 21.5);
      fw.proc.kill('SIGSTOP');
      const pending = client.callTool({ name: 'read_sensor', arguments: { sensor_id: 'rh1' } }, undefined, opts)
        .then(() => null, (e) => e);
      await sleep(500);
      await fw.kill();
      const err = await pending;
      assert.ok(err instanceof McpError, `expected McpError, got ${err}`);
      assert.equal(err.code, GONE);
      await fw.start();
      r = await client.callTool({ name: 'read_sensor', arguments: { sensor_id: 'rh1' } }, undefined, opts);
      assert.equal(r.structuredContent.value, 62);
    });
    assert.match(log, /1 request\(s\) in flight answered with error -32000/);
  });
}
