#!/usr/bin/env node
// Writes build/sample-session.jsonl: the session `npm start` opens when no file is given, so a new user
// has something to look at. A small, hand-scripted pi v3 session (our own content) that shows every
// kind of node Arbor draws: branches, a compaction, a branch summary, labels, tool calls and results,
// an aborted turn, a failing command, model and thinking changes. Deterministic: same bytes every run.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const out = join(import.meta.dirname, "sample-session.jsonl");
let clock = Date.parse("2026-11-02T09:00:00.000Z");
let n = 0;
const lines = [];
const tick = (s = 7) => (clock += s * 1000);
const id = () => (0x1a2b3c00 + ((++n * 2654435761) % 0xffffff)).toString(16).slice(-8).padStart(8, "0");
const iso = () => new Date(clock).toISOString();

lines.push({ type: "session", version: 3, id: "7d3f2a10-5c8e-4b7a-9e21-0f6d4c3b2a19", timestamp: iso(), cwd: "/home/dev/projects/weather-cli" });

function entry(parentId, body) {
	tick();
	const e = { type: body.type, id: id(), parentId, timestamp: iso(), ...body };
	lines.push(e);
	return e.id;
}
const usage = (input, output) => ({
	input,
	output,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: input + output,
	cost: { input: input * 3e-6, output: output * 15e-6, cacheRead: 0, cacheWrite: 0, total: input * 3e-6 + output * 15e-6 },
});
const user = (p, text) => entry(p, { type: "message", message: { role: "user", content: [{ type: "text", text }], timestamp: clock } });
const assistant = (p, content, stopReason = "stop", extra = {}) =>
	entry(p, {
		type: "message",
		message: {
			role: "assistant",
			content,
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude-sonnet-4-5",
			usage: usage(1800 + n * 40, 300 + n * 5),
			stopReason,
			timestamp: clock,
			...extra,
		},
	});
let call = 0;
function tool(p, name, args, output, isError = false) {
	const callId = `toolu_${String(++call).padStart(4, "0")}`;
	const a = assistant(p, [{ type: "toolCall", id: callId, name, arguments: args }], "toolUse");
	const r = entry(a, {
		type: "message",
		message: { role: "toolResult", toolCallId: callId, toolName: name, content: [{ type: "text", text: output }], isError, timestamp: clock },
	});
	return r;
}

let p = entry(null, { type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" });
p = entry(p, { type: "thinking_level_change", thinkingLevel: "medium" });
const ask = user(p, "The weather CLI crashes when the API returns no hourly data. Can you find out why and fix it?");
p = assistant(
	ask,
	[
		{ type: "thinking", thinking: "Start with the parser; the crash is probably an unchecked array access.", thinkingSignature: "sig-1" },
		{ type: "text", text: "Let me look at how the forecast response is parsed." },
	],
	"toolUse",
);
p = tool(
	p,
	"read",
	{ path: "/home/dev/projects/weather-cli/src/forecast.ts", offset: 1, limit: 60 },
	"export function parseForecast(json: ApiResponse) {\n  const first = json.hourly[0];\n  return { temp: first.temp, wind: first.wind_speed };\n}",
);
p = tool(p, "bash", { command: "npm test -- forecast" }, "FAIL src/forecast.test.ts\n  TypeError: Cannot read properties of undefined (reading '0')", true);
const diagnosis = assistant(p, [
	{
		type: "text",
		text: "Found it: `parseForecast` reads `json.hourly[0]` without checking that `hourly` exists. The API omits the field for locations without hourly coverage.\n\nTwo options:\n1. Fall back to the `daily` block.\n2. Return `null` and let the caller print *no hourly data*.",
	},
]);
const labelDiag = entry(diagnosis, { type: "label", targetId: diagnosis, label: "diagnosis" });

// Branch A (abandoned): fall back to daily data.
let a = user(labelDiag, "Let's try option 1, fall back to the daily block.");
a = tool(
	a,
	"edit",
	{
		path: "/home/dev/projects/weather-cli/src/forecast.ts",
		oldText: "const first = json.hourly[0];",
		newText: "const first = json.hourly?.[0] ?? json.daily[0];",
	},
	"Applied 1 edit.",
);
a = tool(a, "bash", { command: "npm test" }, "FAIL src/units.test.ts\n  expected 12.5 (m/s) but got 45 (km/h): daily data uses other units", true);
assistant(a, [{ type: "text", text: "The daily block reports wind in km/h, so the fallback silently mixes units. Converting would need a second code path." }]);

// Branch B (kept): return null, reached by navigating back with a summary of branch A.
const sumB = entry(labelDiag, {
	type: "branch_summary",
	fromId: labelDiag,
	summary:
		"## Goal\nHandle responses without hourly data.\n\n## Tried\nFalling back to `daily[0]`: tests failed because daily wind speed is in km/h.\n\n## Decision\nAbandoned; prefer returning null.",
	details: { readFiles: ["src/forecast.ts"], modifiedFiles: ["src/forecast.ts"] },
});
let b = user(sumB, "Go with option 2 instead: return null and print a friendly message.");
b = tool(
	b,
	"edit",
	{
		path: "/home/dev/projects/weather-cli/src/forecast.ts",
		oldText: "const first = json.hourly[0];",
		newText: "if (!json.hourly?.length) return null;\n  const first = json.hourly[0];",
	},
	"Applied 1 edit.",
);
b = tool(
	b,
	"edit",
	{
		path: "/home/dev/projects/weather-cli/src/cli.ts",
		oldText: "print(parseForecast(res));",
		newText: "const f = parseForecast(res);\nprint(f ?? 'No hourly data for this location.');",
	},
	"Applied 1 edit.",
);
b = tool(b, "bash", { command: "npm test" }, "PASS src/forecast.test.ts\nPASS src/units.test.ts\nTests: 14 passed, 14 total");
const fixed = assistant(b, [
	{
		type: "text",
		text: "Fixed. `parseForecast` now returns `null` when `hourly` is missing or empty, and the CLI prints *No hourly data for this location.* All 14 tests pass.",
	},
]);
b = entry(fixed, { type: "label", targetId: fixed, label: "fix: null on no hourly" });

// An aborted side question under the fix.
const side = user(fixed, "Also add a --json flag?");
assistant(side, [{ type: "text", text: "Sure, I'll add a" }], "aborted");

// Main line continues: a compaction, then more work.
b = user(b, "Now add a regression test for the empty hourly array.");
b = tool(
	b,
	"write",
	{
		path: "/home/dev/projects/weather-cli/src/forecast.empty.test.ts",
		content: "test('no hourly data', () => expect(parseForecast({ hourly: [] })).toBeNull());",
	},
	"Wrote 1 file.",
);
const keep = user(b, "Run the whole suite with coverage.");
b = tool(keep, "bash", { command: "npm test -- --coverage" }, "Tests: 15 passed, 15 total\nCoverage: forecast.ts 100%");
b = entry(b, {
	type: "compaction",
	summary:
		"## Goal\nFix the crash on responses without hourly data.\n\n## Done\n- `parseForecast` returns null without hourly data; CLI prints a message.\n- Regression test added; 15 tests pass.\n\n## Next\nRelease notes.",
	firstKeptEntryId: keep,
	tokensBefore: 48210,
	details: { readFiles: ["src/forecast.ts"], modifiedFiles: ["src/forecast.ts", "src/cli.ts", "src/forecast.empty.test.ts"] },
});
b = entry(b, { type: "model_change", provider: "anthropic", modelId: "claude-haiku-4-5" });
b = user(b, "Write a one-paragraph changelog entry for this fix.");
b = assistant(b, [
	{
		type: "text",
		text: "**Fixed:** `weather` no longer crashes for locations without hourly coverage; it now prints *No hourly data for this location.* (regression test included).",
	},
]);
entry(b, { type: "session_info", name: "weather-cli: no hourly data crash" });

writeFileSync(out, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
process.stdout.write(`wrote ${out} (${lines.length} lines)\n`);
