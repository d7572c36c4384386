// The official TypeScript SDK client through emcp-gateway to three
// greenhouse-mqtt devices on a real mosquitto (docs/gateway.md), started
// with exactly the command and arguments of README.md's "A fleet" entry (the
// broker's port filled in), 2025-11-25 era: the list of every device's
// tools, calls reaching the right device, invalid arguments refused before
// forwarding, a SIGKILLed device leaving the list and answering "offline",
// and its return. Then the same client over Streamable HTTP: the gateway
// started with README's HTTP command (two tenants, --token-env, --allow), the
// client with README's North entry: North's devices listed and called,
// South's answered as an unknown tool. On both transports the client's
// handler gets notifications/tools/list_changed when a device's Will clears
// it and when it is back (stdio: a line of the gateway's; HTTP: the binding's
// legacy GET stream). Not a *.test.mjs: it needs libmosquitto's programs, so
// scripts/test.d/62-gateway.sh runs it (node --test fleet-gateway.mjs).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { ROOT, ERA, assertNoSanitizerReport, httpClient, opts, stdioClient, textOf, within } from './support.mjs';

const README = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
const BUILD = process.env.EMCP_BUILD_DIR || resolve(ROOT, 'build');
const DEVICE_BIN = process.env.GREENHOUSE_MQTT || resolve(BUILD, 'examples-c/greenhouse/greenhouse-mqtt');
const DEVICES = ['gh-a', 'gh-b', 'gh-c'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const expected = (devices) => devices.flatMap((d) => [`${d}.read_sensor`, `${d}.set_vent`]).sort();

function entry(port) {
  const marker = '<!-- host-config:mcpservers-gateway -->';
  const at = README.indexOf(marker);
  assert.ok(at >= 0, `README.md lacks ${marker}`);
  const m = /^\s*```json\n([\s\S]*?)\n```/.exec(README.slice(at + marker.length));
  assert.ok(m, `no json block after ${marker}`);
  assert.ok(m[1].includes('127.0.0.1:1883'), 'no broker placeholder');
  const text = m[1].split('/ABSOLUTE/PATH/TO/emcp/build').join(BUILD).split('127.0.0.1:1883').join(`127.0.0.1:${port}`);
  return JSON.parse(text).mcpServers.fleet;
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

/** A child whose stderr is collected; `ready` resolves when `pattern` shows there. */
function start(cmd, args, pattern) {
  const proc = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const p = { proc, log: '' };
  p.exited = new Promise((res) => proc.once('exit', (code, signal) => res({ code, signal })));
  p.ready = within(10_000, `${cmd} ${args.join(' ')}`, new Promise((res, rej) => {
    proc.stderr.on('data', (c) => {
      p.log += c;
      if (pattern.test(p.log)) res();
    });
    p.exited.then(({ code }) => rej(new Error(`${cmd} exited ${code}:\n${p.log}`)));
  }));
  return p;
}

async function stop(p, signal = 'SIGTERM') {
  if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill(signal);
  await within(10_000, 'stop', p.exited);
}

async function listed(client) {
  return (await client.listTools(undefined, opts)).tools.map((t) => t.name).sort();
}

/** A setup hook counting the client's notifications/tools/list_changed. */
function countChanges() {
  const seen = { n: 0 };
  seen.setup = (client) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => { seen.n += 1; });
  seen.wait = async (n, what) => {
    for (let i = 0; i < 100 && seen.n < n; i++) await sleep(100);
    assert.ok(seen.n >= n, `no notifications/tools/list_changed #${n} (${what})`);
  };
  return seen;
}

async function waitListed(client, want) {
  for (let i = 0; i < 100; i++) {
    const got = await listed(client);
    if (JSON.stringify(got) === JSON.stringify(want)) return;
    await sleep(100);
  }
  assert.deepEqual(await listed(client), want);
}

test('TypeScript SDK through emcp-gateway to three greenhouse-mqtt devices', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'emcp-gateway-ts-'));
  const port = await freePort();
  writeFileSync(join(dir, 'mosquitto.conf'), `listener ${port} 127.0.0.1\nallow_anonymous true\n`);
  const broker = start('mosquitto', ['-v', '-c', join(dir, 'mosquitto.conf')], /running|Opening ipv4 listen/);
  const devices = {};
  let session;
  try {
    await broker.ready;
    for (const d of DEVICES) {
      devices[d] = start(DEVICE_BIN, ['--broker', `127.0.0.1:${port}`, '--server-id', d], /subscribed to /);
      await devices[d].ready;
    }
    const server = entry(port);
    const changes = countChanges();
    session = await stdioClient({ command: server.command, args: server.args, setup: changes.setup });
    const { client, transport } = session;
    assert.equal(transport.negotiatedVersion, ERA);
    assert.equal(client.getServerVersion().name, 'emcp-gateway');

    assert.deepEqual(await listed(client), expected(DEVICES));
    for (const [i, d] of DEVICES.entries()) {
      const r = await client.callTool({ name: `${d}.set_vent`, arguments: { percent: 20 + i } }, undefined, opts);
      assert.equal(r.isError, false, textOf(r));
      assert.deepEqual(r.structuredContent, { ok: true, percent: 20 + i });
    }
    await sleep(200);
    for (const [i, d] of DEVICES.entries()) {
      assert.match(devices[d].log, new RegExp(`vent: 0% -> ${20 + i}%`));
      assert.equal((devices[d].log.match(/^vent: /gm) || []).length, 1, devices[d].log);
    }
    const bad = await client.callTool({ name: 'gh-b.set_vent', arguments: { percent: 101 } }, undefined, opts);
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /percent: 101 is above maximum 100/);
    await sleep(200);
    assert.doesNotMatch(devices['gh-b'].log, /args=\{"percent":101\}/, 'the invalid call reached the device');

    await stop(devices['gh-c'], 'SIGKILL');
    await changes.wait(1, 'gh-c killed');
    await waitListed(client, expected(['gh-a', 'gh-b']));
    const off = await client.callTool({ name: 'gh-c.set_vent', arguments: { percent: 60 } }, undefined, opts);
    assert.equal(off.isError, true);
    assert.match(textOf(off), /device gh-c is offline/);

    devices['gh-c'] = start(DEVICE_BIN, ['--broker', `127.0.0.1:${port}`, '--server-id', 'gh-c'], /subscribed to /);
    await devices['gh-c'].ready;
    await changes.wait(2, 'gh-c back');
    await waitListed(client, expected(DEVICES));
    const back = await client.callTool({ name: 'gh-c.read_sensor', arguments: { sensor_id: 't2' } }, undefined, opts);
    assert.equal(back.isError, false, textOf(back));
    assert.equal(back.structuredContent.value, 34.1);
  } finally {
    if (session) await session.close();
    for (const p of Object.values(devices)) {
      await stop(p);
      assertNoSanitizerReport('greenhouse-mqtt', p.log);
    }
    await stop(broker);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** README's HTTP command (`<!-- readme-command:gateway-http -->`): the token
 *  variables of its export line (fresh random tokens) and its argv, with
 *  the build path, the broker's port and a free HTTP port filled in. */
function httpCommand(brokerPort) {
  const marker = '<!-- readme-command:gateway-http -->';
  const at = README.indexOf(marker);
  assert.ok(at >= 0, `README.md lacks ${marker}`);
  const m = /^\s*```sh\n([\s\S]*?)\n```/.exec(README.slice(at + marker.length));
  assert.ok(m, `no sh block after ${marker}`);
  const [exportLine, ...rest] = m[1].split('\n');
  const env = {};
  const assignments = [...exportLine.matchAll(/(\w+)="([^"]*)"/g)];
  assert.ok(exportLine.startsWith('export ') && assignments.length > 0, exportLine);
  for (const [, name, value] of assignments) {
    assert.equal(value, '$(openssl rand -hex 24)', `unexpected export ${name}`);
    env[name] = randomBytes(24).toString('hex');
  }
  const argv = rest.join(' ').replace(/\\ /g, ' ').split(/\s+/).filter(Boolean);
  assert.equal(argv[0], 'build/tools/gateway/emcp-gateway');
  argv[0] = resolve(BUILD, 'tools/gateway/emcp-gateway');
  const swap = { '127.0.0.1:1883': `127.0.0.1:${brokerPort}`, '127.0.0.1:8090': '127.0.0.1:0' };
  for (const k of Object.keys(swap)) assert.ok(argv.includes(k), `no ${k} in ${argv}`);
  return { argv: argv.map((a) => swap[a] || a), env };
}

/** README's North host entry (`<!-- host-config:mcpservers-gateway-http -->`). */
function httpEntry(url, env) {
  const marker = '<!-- host-config:mcpservers-gateway-http -->';
  const at = README.indexOf(marker);
  assert.ok(at >= 0, `README.md lacks ${marker}`);
  const m = /^\s*```json\n([\s\S]*?)\n```/.exec(README.slice(at + marker.length));
  const fleet = JSON.parse(m[1]).mcpServers.fleet;
  assert.equal(fleet.type, 'http');
  assert.equal(fleet.url, 'http://127.0.0.1:8090/mcp');
  const headers = {};
  for (const [k, v] of Object.entries(fleet.headers)) headers[k] = v.replace(/\$\{(\w+)\}/g, (_, n) => env[n]);
  return { url, headers };
}

test('TypeScript SDK over Streamable HTTP through emcp-gateway: README command and North host entry', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'emcp-gateway-ts-http-'));
  const port = await freePort();
  writeFileSync(join(dir, 'mosquitto.conf'), `listener ${port} 127.0.0.1\nallow_anonymous true\n`);
  const broker = start('mosquitto', ['-v', '-c', join(dir, 'mosquitto.conf')], /running|Opening ipv4 listen/);
  const devices = {};
  let gw;
  let session;
  try {
    await broker.ready;
    for (const d of DEVICES) {
      devices[d] = start(DEVICE_BIN, ['--broker', `127.0.0.1:${port}`, '--server-id', d], /subscribed to /);
      await devices[d].ready;
    }
    const { argv, env } = httpCommand(port);
    gw = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    let gwLog = '';
    const gwExited = new Promise((res) => gw.once('exit', (code, signal) => res({ code, signal })));
    const url = await within(15_000, 'emcp-gateway --http', new Promise((res, rej) => {
      gw.stderr.on('data', (c) => {
        gwLog += c;
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(gwLog);
        if (m) res(m[1]);
      });
      gwExited.then(({ code }) => rej(new Error(`emcp-gateway exited ${code}:\n${gwLog}`)));
    }));
    const north = httpEntry(url, env);
    const changes = countChanges();
    session = await httpClient(north.url, { headers: north.headers, setup: changes.setup });
    const { client, transport } = session;
    assert.equal(transport.negotiatedVersion, ERA);
    assert.equal(client.getServerVersion().name, 'emcp-gateway');
    // North's devices only.
    assert.deepEqual(await listed(client), expected(['gh-a', 'gh-b']));
    for (const [i, d] of ['gh-a', 'gh-b'].entries()) {
      const r = await client.callTool({ name: `${d}.set_vent`, arguments: { percent: 40 + i } }, undefined, opts);
      assert.equal(r.isError, false, textOf(r));
      assert.deepEqual(r.structuredContent, { ok: true, percent: 40 + i });
    }
    await sleep(200);
    for (const [i, d] of ['gh-a', 'gh-b'].entries()) {
      assert.match(devices[d].log, new RegExp(`vent: 0% -> ${40 + i}%`));
    }
    // South's device is unknown to North.
    await assert.rejects(
      client.callTool({ name: 'gh-c.set_vent', arguments: { percent: 50 } }, undefined, opts),
      (e) => e.code === -32602 && /Unknown tool: gh-c.set_vent/.test(e.message),
    );
    assert.doesNotMatch(devices['gh-c'].log, /^vent: /m);
    const r = await client.callTool({ name: 'gh-b.read_sensor', arguments: { sensor_id: 'rh1' } }, undefined, opts);
    assert.equal(r.isError, false, textOf(r));
    assert.equal(r.structuredContent.value, 62);
    // The legacy GET stream: a device's Will and its return reach the client.
    for (let i = 0; i < 50 && !/legacy GET stream opened/.test(gwLog); i++) await sleep(100);
    await stop(devices['gh-a'], 'SIGKILL');
    await changes.wait(1, 'gh-a killed');
    assert.deepEqual(await listed(client), expected(['gh-b']));
    devices['gh-a'] = start(DEVICE_BIN, ['--broker', `127.0.0.1:${port}`, '--server-id', 'gh-a'], /subscribed to /);
    await devices['gh-a'].ready;
    await changes.wait(2, 'gh-a back');
    assert.deepEqual(await listed(client), expected(['gh-a', 'gh-b']));
    await session.close();
    session = undefined;
    gw.kill('SIGTERM');
    const { code } = await within(10_000, 'emcp-gateway stop', gwExited);
    assertNoSanitizerReport('emcp-gateway', gwLog);
    assert.equal(code, 0, gwLog);
    assert.match(gwLog, /audit: principal=north device=gh-c tool=set_vent outcome=refused /);
    assert.match(gwLog, /audit: principal=north device=gh-b tool=read_sensor outcome=ok /);
  } finally {
    if (session) await session.close();
    if (gw && gw.exitCode === null && gw.signalCode === null) gw.kill('SIGKILL');
    for (const p of Object.values(devices)) {
      await stop(p);
      assertNoSanitizerReport('greenhouse-mqtt', p.log);
    }
    await stop(broker);
    rmSync(dir, { recursive: true, force: true });
  }
});
