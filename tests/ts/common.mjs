// The tests every transport runs: one SDK Client session per test against a
// fresh greenhouse (set_vent has a 2 s minimum interval, so tests do not share
// a server), all in the 2025-11-25 era (the newest the SDK speaks).

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ElicitRequestSchema, ErrorCode } from '@modelcontextprotocol/sdk/types.js';

import { ERA, argumentErrorForm, expectMcpError, modelVisible, opts, textOf } from './support.mjs';

const READINGS = { t1: [21.5, 'C'], t2: [34.1, 'C'], rh1: [62, '%'] };
// Types and required members only: tools/list must fit one page of the test
// firmware's 1280-byte response buffer (examples-c/firmware/main.c FW_TX_MAX).
const READ_SENSOR_OUTPUT_SCHEMA = {
  type: 'object',
  required: ['value', 'unit', 'age_s'],
  properties: {
    value: { type: 'number' },
    unit: { type: 'string' },
    age_s: { type: 'integer' },
  },
};

// Bad arguments, what the model must get to read in either form.
export const BAD_ARGS = [
  { name: 'read_sensor', args: { sensor_id: 't9' }, text: 'sensor_id: "t9" is not one of t1, t2, rh1, soil1' },
  { name: 'set_vent', args: { percent: 120 }, text: 'percent: 120 is above maximum 100' },
];

/**
 * `session(fn)` runs fn({client}) in a fresh connected session and closes it;
 * `probe(name, args)` is the raw (non-SDK) answer of the same server kind.
 */
export function commonTests(label, session, probe) {
  test(`${label}: connect negotiates ${ERA} and reports the greenhouse`, () =>
    session(async ({ client }) => {
      assert.equal(client.transport.negotiatedVersion, ERA);
      assert.deepEqual(client.getServerVersion(), { name: 'greenhouse-gw', version: '0.4.0', title: 'Greenhouse gateway' });
      const caps = client.getServerCapabilities();
      assert.ok(caps.tools && caps.resources && caps.prompts && caps.completions, JSON.stringify(caps));
    }));

  test(`${label}: tools/list, read_sensor with its outputSchema`, () =>
    session(async ({ client }) => {
      const { tools, nextCursor } = await client.listTools(undefined, opts);
      assert.equal(nextCursor, undefined);
      assert.deepEqual(tools.map((t) => t.name), ['read_sensor', 'set_vent']);
      const [readSensor, setVent] = tools;
      assert.deepEqual(readSensor.inputSchema.properties.sensor_id.enum, ['t1', 't2', 'rh1', 'soil1']);
      assert.deepEqual(readSensor.outputSchema, READ_SENSOR_OUTPUT_SCHEMA);
      assert.equal(readSensor.annotations.readOnlyHint, true);
      assert.deepEqual(setVent.inputSchema.properties.percent, { type: 'integer', minimum: 0, maximum: 100 });
    }));

  test(`${label}: read_sensor, structuredContent validated by the SDK against the outputSchema`, () =>
    session(async ({ client }) => {
      await client.listTools(undefined, opts); // the SDK caches the outputSchema validators here
      for (const [id, [value, unit]] of Object.entries(READINGS)) {
        // callTool throws McpError if structuredContent does not match the outputSchema.
        const r = await client.callTool({ name: 'read_sensor', arguments: { sensor_id: id } }, undefined, opts);
        assert.equal(r.isError, false);
        assert.equal(r.structuredContent.value, value);
        assert.equal(r.structuredContent.unit, unit);
        assert.ok(Number.isInteger(r.structuredContent.age_s) && r.structuredContent.age_s >= 0);
        assert.match(textOf(r), new RegExp(`^${value} ${unit === '%' ? '%' : 'C'}, \\d+s old$`));
      }
      // A refusal is isError with the message as text and no structuredContent,
      // so the SDK's outputSchema check does not hide it from the model.
      const r = await client.callTool({ name: 'read_sensor', arguments: { sensor_id: 'soil1' } }, undefined, opts);
      assert.equal(r.isError, true);
      assert.equal(textOf(r), 'no reading yet');
      assert.equal(r.structuredContent, undefined);
    }));

  test(`${label}: set_vent 60`, () =>
    session(async ({ client }) => {
      const r = await client.callTool({ name: 'set_vent', arguments: { percent: 60 } }, undefined, opts);
      assert.equal(r.isError, false);
      assert.equal(textOf(r), 'vent set to 60%');
      assert.deepEqual(r.structuredContent, { ok: true, percent: 60 });
    }));

  // SEP-1303: invalid arguments are a tool execution error (isError, the
  // message as text) the model can read and correct, not a JSON-RPC -32602
  // error the SDK throws and a host keeps from the model.
  test(`${label}: bad arguments -> SEP-1303 isError result with the message as text`, async () => {
    assert.equal(argumentErrorForm(await probe('set_vent', { percent: 120 })), 'isError',
      'the raw answer to set_vent 120 must be an isError result');
    await session(async ({ client }) => {
      await client.listTools(undefined, opts);
      for (const bad of BAD_ARGS) {
        const seen = await modelVisible(client, bad.name, bad.args);
        assert.equal(seen.form, 'isError', `${bad.name} ${JSON.stringify(bad.args)}: ${JSON.stringify(seen)}`);
        assert.ok(seen.text.includes(bad.text), `${JSON.stringify(seen.text)} lacks ${JSON.stringify(bad.text)}`);
      }
    });
  });

  test(`${label}: unknown tool -> McpError -32602`, () =>
    session(async ({ client }) => {
      const e = await expectMcpError(() => client.callTool({ name: 'open_door', arguments: {} }, undefined, opts));
      assert.equal(e.code, ErrorCode.InvalidParams);
      assert.match(e.message, /Unknown tool: open_door/);
    }));

  test(`${label}: resources/list, resources/read greenhouse://sensors and a template instance`, () =>
    session(async ({ client }) => {
      const { resources } = await client.listResources(undefined, opts);
      assert.deepEqual(resources.map((r) => [r.uri, r.mimeType]), [['greenhouse://sensors', 'application/json']]);
      const map = await client.readResource({ uri: 'greenhouse://sensors' }, opts);
      assert.equal(map.contents.length, 1);
      const sensors = JSON.parse(map.contents[0].text).sensors.map((s) => s.id);
      assert.deepEqual(sensors, ['t1', 't2', 'rh1', 'soil1']);
      const one = await client.readResource({ uri: 'greenhouse://sensors/rh1' }, opts);
      assert.deepEqual(JSON.parse(one.contents[0].text), { id: 'rh1', kind: 'relative humidity', unit: '%', zone: 'centre' });
    }));

  test(`${label}: resources/templates/list`, () =>
    session(async ({ client }) => {
      const { resourceTemplates } = await client.listResourceTemplates(undefined, opts);
      assert.deepEqual(resourceTemplates.map((r) => r.uriTemplate), ['greenhouse://sensors/{sensor_id}']);
    }));

  test(`${label}: unknown resource -> McpError -32002 (not a transport error)`, () =>
    session(async ({ client }) => {
      for (const uri of ['greenhouse://nothing', 'greenhouse://sensors/t9']) {
        const e = await expectMcpError(() => client.readResource({ uri }, opts));
        assert.equal(e.code, -32002, e.message);
        assert.match(e.message, /Resource not found/);
      }
    }));

  test(`${label}: prompts/list, prompts/get vent_procedure`, () =>
    session(async ({ client }) => {
      const { prompts } = await client.listPrompts(undefined, opts);
      assert.deepEqual(prompts.map((p) => p.name), ['vent_procedure']);
      assert.deepEqual(prompts[0].arguments.map((a) => [a.name, a.required]), [['target_percent', true]]);
      const p = await client.getPrompt({ name: 'vent_procedure', arguments: { target_percent: '50' } }, opts);
      const texts = p.messages.filter((m) => m.content.type === 'text').map((m) => m.content.text);
      assert.ok(texts.some((t) => t.startsWith('Open the roof vent to 50% following the greenhouse procedure')), JSON.stringify(p));
      assert.ok(p.messages.some((m) => m.content.type === 'resource' && m.content.resource.uri === 'greenhouse://sensors'));
    }));

  test(`${label}: completion/complete on the prompt argument and the template variable`, () =>
    session(async ({ client }) => {
      const c = await client.complete({ ref: { type: 'ref/prompt', name: 'vent_procedure' }, argument: { name: 'target_percent', value: '1' } }, opts);
      assert.deepEqual(c.completion.values, ['10', '100']);
      const all = await client.complete({ ref: { type: 'ref/prompt', name: 'vent_procedure' }, argument: { name: 'target_percent', value: '' } }, opts);
      assert.deepEqual(all.completion.values, ['0', '10', '25', '50', '80', '100']);
      const s = await client.complete({ ref: { type: 'ref/resource', uri: 'greenhouse://sensors/{sensor_id}' }, argument: { name: 'sensor_id', value: 't' } }, opts);
      assert.deepEqual(s.completion.values, ['t1', 't2']);
    }));
}

// set_vent above 80 % asks for a confirmation: the server sends the
// 2025-11-25 elicitation/create to the client (over Streamable HTTP on the
// call's SSE stream, over stdio as a line on stdout) while the call is open,
// and the call's result follows the client's answer.
export const ELICIT_MESSAGE = 'Open the roof vent to 90%? Above 80% wind and rain can get in.';

export function assertAsked(asked) {
  assert.equal(asked.length, 1, JSON.stringify(asked));
  assert.equal(asked[0].message, ELICIT_MESSAGE);
  assert.deepEqual(asked[0].requestedSchema.required, ['confirm']);
  assert.equal(asked[0].requestedSchema.properties.confirm.type, 'boolean');
}

/** set_vent 90 with an accepting, a non-confirming, a declining and a cancelling elicitation handler. */
export function elicitationTests(label, session) {
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

  test(`${label}: set_vent 90, elicitation accepted -> vent set`, () =>
    elicitingSession({ action: 'accept', content: { confirm: true } }, async ({ client }, asked) => {
      const r = await client.callTool({ name: 'set_vent', arguments: { percent: 90 } }, undefined, opts);
      assertAsked(asked);
      assert.equal(r.isError, false, textOf(r));
      assert.equal(textOf(r), 'vent set to 90%');
      assert.deepEqual(r.structuredContent, { ok: true, percent: 90 });
    }));

  for (const [what, answer] of [
    ['accepted with confirm false', { action: 'accept', content: { confirm: false } }],
    ['declined', { action: 'decline' }],
    ['cancelled', { action: 'cancel' }],
  ]) {
    test(`${label}: set_vent 90, elicitation ${what} -> not confirmed`, () =>
      elicitingSession(answer, async ({ client }, asked) => {
        const r = await client.callTool({ name: 'set_vent', arguments: { percent: 90 } }, undefined, opts);
        assertAsked(asked);
        assert.equal(r.isError, true);
        assert.equal(textOf(r), 'not confirmed: vent unchanged');
      }));
  }

  // AbortSignal on callTool: the SDK sends notifications/cancelled for the
  // call while its elicitation is unanswered. The server abandons the call
  // (no response for its id, the tool does not run again) and frees its
  // round-trip storage: more aborted calls than the HTTP binding holds at
  // once (EMCP_HTTP_MAX_INPUT_CALLS, 4; stdio holds 1), then a call that is
  // still asked and answered.
  test(`${label}: set_vent 90 aborted while its elicitation is unanswered -> abandoned, the next call is asked`, () => {
    const asked = [];
    let answer = null; // never answered until set
    return session(async ({ client }) => {
      const errors = [];
      client.onerror = (e) => errors.push(String(e));
      for (let i = 0; i < 5; i++) {
        const ac = new AbortController();
        const call = client.callTool({ name: 'set_vent', arguments: { percent: 90 } }, undefined,
          { ...opts, signal: ac.signal });
        const deadline = Date.now() + 5000;
        while (asked.length < i + 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        assert.equal(asked.length, i + 1, `call ${i + 1} was not asked: ${JSON.stringify(await Promise.race([call, 'pending']))}`);
        ac.abort('the user gave up');
        await assert.rejects(call);
      }
      answer = { action: 'decline' };
      const r = await client.callTool({ name: 'set_vent', arguments: { percent: 90 } }, undefined, opts);
      assert.equal(asked.length, 6);
      assert.equal(textOf(r), 'not confirmed: vent unchanged');
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(errors, [], 'no response for a cancelled id, no transport error');
    }, {
      capabilities: { elicitation: { form: {} } },
      setup: (client) => client.setRequestHandler(ElicitRequestSchema, (req) => {
        asked.push(req.params);
        return answer !== null ? answer : new Promise(() => {});
      }),
    });
  });

  test(`${label}: set_vent 90 without the elicitation capability -> refused, nothing asked`, () =>
    session(async ({ client }) => {
      const r = await client.callTool({ name: 'set_vent', arguments: { percent: 90 } }, undefined, opts);
      assert.equal(r.isError, true);
      assert.equal(textOf(r), 'refused: opening above 80% needs a confirmation this client cannot give');
    }));
}
