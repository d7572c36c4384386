// Shared helpers of the TypeScript SDK tests: where the greenhouse binaries
// are, starting and stopping greenhouse-http on a free port, SDK clients with
// bounded timeouts, raw probes of the server's current behaviour, and the
// model-visible text of a tools/call in either error form.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, McpError } from '@modelcontextprotocol/sdk/types.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ERA = '2025-11-25'; // the newest era the TypeScript SDK 1.32.2 speaks
export const REQUEST_TIMEOUT_MS = 10_000; // one request, SDK side
export const SERVER_START_MS = 10_000; // greenhouse-http printing its port
export const SERVER_STOP_MS = 5_000; // greenhouse-http exiting after SIGTERM

assert.equal(LATEST_PROTOCOL_VERSION, ERA, 'the pinned SDK speaks another latest protocol version');

function binary(env, rel) {
  const path = process.env[env] || resolve(ROOT, rel);
  if (!existsSync(path)) {
    throw new Error(`${path} is missing: build it (cmake --build build --target ${rel.split('/').pop()}) or set ${env}`);
  }
  return path;
}

export const stdioBin = () => binary('GREENHOUSE_STDIO', 'build/examples-c/greenhouse/greenhouse-stdio');
export const httpBin = () => binary('GREENHOUSE_HTTP', 'build/examples-c/greenhouse/greenhouse-http');
export const relayBin = () => binary('EMCP_PQC_RELAY', 'build/pqc/tests/pqc/emcp-pqc-relay');

const SANITIZER_MARKERS = ['AddressSanitizer', 'LeakSanitizer', 'runtime error:'];

export function assertNoSanitizerReport(name, log) {
  for (const m of SANITIZER_MARKERS) {
    assert.ok(!log.includes(m), `${m} in ${name}'s stderr:\n${log.slice(-3000)}`);
  }
}

/** Rejects after `ms` with `what` in the message; the timer never keeps node alive. */
export function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The post-quantum profile (docs/pqc.md, scripts/test.d/65-pqc.sh): with
 * EMCP_PQC_GROUP set (X25519MLKEM768, X25519, ...), greenhouse-http (built on
 * wolfSSL, GREENHOUSE_HTTP) serves TLS 1.3 with that key-exchange group alone,
 * and the SDK reaches it through emcp-pqc-relay (EMCP_PQC_RELAY), a wolfSSL
 * client taking plain HTTP on a loopback port: Node 20's OpenSSL 3.0 has no
 * ML-KEM. Every handshake the relay made must have negotiated the group.
 */
export const PQC_GROUP = process.env.EMCP_PQC_GROUP || '';
// To see the group check fail, as in tests/pqc/pqc_support.py: a server of
// other groups (EMCP_PQC_SERVER_GROUPS=X25519) and a relay offering more
// (EMCP_PQC_RELAY_GROUPS=X25519MLKEM768:X25519) than the group expected.
const PQC_SERVER_GROUPS = process.env.EMCP_PQC_SERVER_GROUPS || PQC_GROUP;
const PQC_RELAY_GROUPS = process.env.EMCP_PQC_RELAY_GROUPS || PQC_GROUP;
let certs;

/** A P-256 certificate for localhost and 127.0.0.1 and its key (one per process), as tests/pqc/pqc_support.py makes it. */
function pqcCert() {
  if (!certs) {
    const dir = mkdtempSync(join(tmpdir(), 'emcp-pqc-ts-'));
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
      '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    certs = { cert, key, dir };
  }
  return certs;
}

/** Spawns `path args`; resolves with { proc, log (its stderr so far), exited, port } once that matches `re`. */
async function spawnListening(name, path, args, re) {
  const proc = spawn(path, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const p = { proc, log: '' };
  p.exited = new Promise((res) => proc.once('exit', (code, signal) => res({ code, signal })));
  const port = new Promise((res, rej) => {
    proc.stderr.on('data', (chunk) => {
      p.log += chunk;
      const m = re.exec(p.log);
      if (m) res(Number(m[1]));
    });
    p.exited.then(({ code }) => rej(new Error(`${name} exited ${code} before listening:\n${p.log}`)));
  });
  try {
    p.port = await within(SERVER_START_MS, `${name} start`, port);
  } catch (e) {
    proc.kill('SIGKILL');
    throw e;
  }
  return p;
}

/** SIGTERM, bounded wait (SIGKILL after it): { code, signal }. */
async function terminate(name, p) {
  if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGTERM');
  try {
    return await within(SERVER_STOP_MS, `${name} stop`, p.exited);
  } catch (e) {
    p.proc.kill('SIGKILL');
    await p.exited;
    throw e;
  }
}

/** greenhouse-http on 127.0.0.1, port 0 (the kernel picks a free one); behind emcp-pqc-relay with EMCP_PQC_GROUP. */
export class HttpServer {
  static async start(...args) {
    const s = new HttpServer();
    if (!PQC_GROUP) {
      s.server = await spawnListening('greenhouse-http', httpBin(), ['--listen', '127.0.0.1:0', ...args],
        /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/);
      s.port = s.server.port;
    } else {
      const { cert, key, dir } = pqcCert();
      s.server = await spawnListening('greenhouse-http', httpBin(), ['--listen', '127.0.0.1:0',
        '--tls-cert', cert, '--tls-key', key, '--tls-groups', PQC_SERVER_GROUPS, ...args],
      /listening on https:\/\/127\.0\.0\.1:(\d+)\/mcp/);
      s.report = join(dir, `relay-${s.server.port}.report`);
      try {
        s.relay = await spawnListening('emcp-pqc-relay', relayBin(), ['--connect', `127.0.0.1:${s.server.port}`,
          '--ca', cert, '--groups', PQC_RELAY_GROUPS, '--expect-group', PQC_GROUP, '--report', s.report],
        /listening on 127\.0\.0\.1:(\d+)/);
      } catch (e) {
        await terminate('greenhouse-http', s.server);
        throw e;
      }
      s.port = s.relay.port;
    }
    s.url = `http://127.0.0.1:${s.port}/mcp`;
    return s;
  }

  get log() {
    return this.server.log;
  }

  /**
   * Asserts a clean exit 0 and no sanitizer report; with EMCP_PQC_GROUP also
   * that the relay made at least one handshake, every one TLS 1.3 in that
   * group (its report: "relay: conn=N group=G version=V ... expect=ok"), and
   * exited 0 (3 after another group, 4 after a failed handshake).
   */
  async stop() {
    // The relay first: a client may still open a connection as it closes.
    const relay = this.relay ? await terminate('emcp-pqc-relay', this.relay) : null;
    const result = await terminate('greenhouse-http', this.server);
    assertNoSanitizerReport('greenhouse-http', this.server.log);
    assert.equal(result.code, 0, `greenhouse-http exited ${result.code} (${result.signal}):\n${this.server.log.slice(-3000)}`);
    if (relay) {
      const lines = readFileSync(this.report, 'utf8').split('\n').filter((l) => l);
      assert.ok(lines.length > 0, 'no TLS handshake went through emcp-pqc-relay');
      for (const l of lines) {
        const m = /^relay: conn=\d+ group=(\S+) version=(\S+) .* expect=(\S+)$/.exec(l);
        assert.deepEqual(m && [m[1], m[2], m[3]], [PQC_GROUP, 'TLSv1.3', 'ok'], `negotiated: ${l}`);
      }
      assert.equal(relay.code, 0, `emcp-pqc-relay exited ${relay.code}:\n${this.relay.log.slice(-3000)}`);
    }
  }
}

const CLIENT_INFO = { name: 'emcp-ts-sdk-test', version: '1.0.0' };

/** An SDK Client; `capabilities` as the client declares them. */
export function newClient(capabilities = {}) {
  return new Client(CLIENT_INFO, { capabilities });
}

/** Records the protocol version the Client settles on (it hands it to setProtocolVersion). */
function recordVersion(transport) {
  const own = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => {
    transport.negotiatedVersion = v;
    own?.(v);
  };
}

/** A connected Client over stdio (StdioClientTransport spawns greenhouse-stdio). */
export async function stdioClient({ command = stdioBin(), args = [], env, capabilities, setup } = {}) {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...getDefaultEnvironment(), ...(env || {}) },
    stderr: 'pipe',
  });
  recordVersion(transport);
  let log = '';
  transport.stderr.on('data', (c) => (log += c));
  const client = newClient(capabilities);
  if (setup) setup(client);
  await within(REQUEST_TIMEOUT_MS, 'stdio connect', client.connect(transport, { timeout: REQUEST_TIMEOUT_MS }));
  const close = async () => {
    const proc = transport._process; // the SDK keeps the child here; read it before close() drops it
    await within(SERVER_STOP_MS + 5_000, 'stdio close', client.close());
    if (proc && proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
      assert.fail(`greenhouse-stdio still running after close:\n${log.slice(-3000)}`);
    }
    assertNoSanitizerReport('greenhouse-stdio', log);
    if (proc) assert.equal(proc.exitCode, 0, `greenhouse-stdio exited ${proc.exitCode}:\n${log.slice(-3000)}`);
  };
  return { client, transport, close, stderr: () => log };
}

/** A connected Client over Streamable HTTP. */
export async function httpClient(url, { headers, capabilities, setup } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : {});
  recordVersion(transport);
  const client = newClient(capabilities);
  if (setup) setup(client);
  await within(REQUEST_TIMEOUT_MS, 'http connect', client.connect(transport, { timeout: REQUEST_TIMEOUT_MS }));
  const close = () => within(SERVER_STOP_MS, 'http close', client.close());
  return { client, transport, close };
}

export const opts = { timeout: REQUEST_TIMEOUT_MS };

/** The text blocks of a result, joined. */
export function textOf(result) {
  return result.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
}

/**
 * What a model gets to see of a tools/call, in either form:
 *   { form: 'rpc-error', code, text }  the SDK threw McpError (JSON-RPC error)
 *   { form: 'isError', text, result }   a tool execution error result (SEP-1303)
 *   { form: 'ok', text, result }        a successful result
 * Anything else (transport errors, timeouts) is rethrown.
 */
export async function modelVisible(client, name, args) {
  try {
    const result = await client.callTool({ name, arguments: args }, undefined, opts);
    return { form: result.isError ? 'isError' : 'ok', text: textOf(result), result };
  } catch (e) {
    if (e instanceof McpError) {
      // McpError's message is "MCP error <code>: <message>"; the server's own text is what follows.
      return { form: 'rpc-error', code: e.code, text: e.message.replace(/^MCP error -?\d+: /, ''), data: e.data };
    }
    throw e;
  }
}

/** Runs `fn` and expects the SDK to throw McpError; returns it. */
export async function expectMcpError(fn) {
  let err;
  try {
    await fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err, 'expected the SDK to throw');
  assert.ok(err instanceof McpError, `expected McpError, got ${err?.constructor?.name}: ${err?.message}`);
  return err;
}

const INIT = {
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: ERA, capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const callMsg = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/**
 * Raw probe, no SDK: the 2025-11-25 answer of greenhouse-stdio to one
 * tools/call (`error` or `result` of the JSON-RPC response).
 */
export async function probeStdio(name, args) {
  const proc = spawn(stdioBin(), [], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (c) => (out += c));
  proc.stderr.on('data', (c) => (err += c));
  const exited = new Promise((res) => proc.once('exit', res));
  for (const m of [INIT, INITIALIZED, callMsg(2, name, args)]) proc.stdin.write(JSON.stringify(m) + '\n');
  proc.stdin.end();
  try {
    await within(SERVER_STOP_MS, 'greenhouse-stdio probe', exited);
  } finally {
    if (proc.exitCode === null) proc.kill('SIGKILL');
  }
  assertNoSanitizerReport('greenhouse-stdio', err);
  const msgs = out.trim().split('\n').map((l) => JSON.parse(l));
  return msgs.find((m) => m.id === 2);
}

/** The same probe over Streamable HTTP against a running greenhouse-http (JSON responses). */
export async function probeHttp(url, name, args, headers = {}) {
  const post = (body, session) =>
    within(REQUEST_TIMEOUT_MS, 'http probe', fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers,
        ...(session ? { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': ERA } : {}),
      },
      body: JSON.stringify(body),
    }));
  const init = await post(INIT);
  const initText = await init.text();
  assert.equal(init.status, 200, initText);
  const session = init.headers.get('mcp-session-id');
  (await post(INITIALIZED, session)).body?.cancel();
  const r = await post(callMsg(2, name, args), session);
  const type = r.headers.get('content-type') || '';
  const text = await r.text();
  if (type.startsWith('text/event-stream')) {
    const data = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
    return data.find((m) => m.id === 2);
  }
  return JSON.parse(text);
}

/** 'rpc-error' while the server answers bad arguments with JSON-RPC -32602, 'isError' after SEP-1303. */
export function argumentErrorForm(response) {
  if (response?.error?.code === -32602) return 'rpc-error';
  if (response?.result?.isError === true) return 'isError';
  return `unexpected: ${JSON.stringify(response)}`;
}
