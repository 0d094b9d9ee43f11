// XSS vectors and a session that carries them in every text field pi's format has (figure 5). Each vector
// starts with a visible sentinel word (XSSV-<field>-<n>) so the harness can check the text still reaches
// the user, and its payload calls __xss(<id>) (a Playwright binding) and alert(<id>) so any execution is
// caught, whatever the sanitizer or CSP let through.

const P = (id) => `__xss(${id}),alert(${id})`;

/** [name, builder(id)] — builder returns the hostile text for one field. */
export const VECTORS = [
	["script tag", (id) => `<script>${P(id)}</script>`],
	["img onerror", (id) => `<img src=x onerror="${P(id)}">`],
	["svg onload", (id) => `<svg onload="${P(id)}"></svg>`],
	["svg script", (id) => `<svg><script>${P(id)}</script></svg>`],
	["mathml mXSS", (id) => `<math><mtext><table><mglyph><style><img src=x onerror="${P(id)}">`],
	["noscript mXSS", (id) => `<noscript><p title="</noscript><img src=x onerror=${P(id)}>">`],
	["iframe javascript:", (id) => `<iframe src="javascript:${P(id)}"></iframe>`],
	["iframe srcdoc", (id) => `<iframe srcdoc="<script>parent.${P(id)}</script>"></iframe>`],
	["a href javascript:", (id) => `<a href="javascript:${P(id)}">click</a>`],
	["a href obfuscated javascript:", (id) => `<a href="jav&#x09;ascript:${P(id)}">click</a>`],
	["markdown link javascript:", (id) => `[click me](javascript:${P(id)})`],
	["markdown link data:", (id) => `[click me](data:text/html;base64,${Buffer.from(`<script>${P(id)}</script>`).toString("base64")})`],
	["markdown image attribute breakout", (id) => `![alt](x" onerror="${P(id)})`],
	["markdown image remote", (id) => `![pixel](http://xss.invalid/md-${id}.png)`],
	["markdown reference link", (id) => `[ref][r${id}]\n\n[r${id}]: javascript:${P(id)}`],
	["autolink javascript", (id) => `<javascript:${P(id)}>`],
	["details ontoggle", (id) => `<details open ontoggle="${P(id)}"><summary>s</summary></details>`],
	["input autofocus onfocus", (id) => `<input autofocus onfocus="${P(id)}">`],
	["body onload", (id) => `<body onload="${P(id)}">`],
	["svg animate onbegin", (id) => `<svg><animate onbegin="${P(id)}" attributeName="x" dur="1s"/></svg>`],
	["video source onerror", (id) => `<video><source onerror="${P(id)}"></video>`],
	["object data", (id) => `<object data="javascript:${P(id)}"></object>`],
	["embed data: html", (id) => `<embed src="data:text/html,<script>${P(id)}</script>">`],
	["form action javascript:", (id) => `<form action="javascript:${P(id)}"><button>go</button></form>`],
	["meta refresh", (id) => `<meta http-equiv="refresh" content="0;url=javascript:${P(id)}">`],
	["base href", (id) => `<base href="http://xss.invalid/base-${id}/">`],
	["css url() in style attribute", (id) => `<div style="background:url(http://xss.invalid/css-${id}.png)">styled</div>`],
	["style element import", (id) => `<style>@import url(http://xss.invalid/import-${id}.css); body{display:none}</style>`],
	["link stylesheet", (id) => `<link rel="stylesheet" href="http://xss.invalid/link-${id}.css">`],
	["img srcset remote", (id) => `<img srcset="http://xss.invalid/srcset-${id}.png 1x">`],
	["attribute breakout", (id) => `"><img src=x onerror="${P(id)}">`],
	["template injection", (id) => `{{constructor.constructor('${P(id)}')()}} \${${P(id)}}`],
	["html code fence", (id) => "```html\n<script>" + P(id) + '</script><img src=x onerror="' + P(id) + '">\n```'],
	["inline code", (id) => `\`<img src=x onerror="${P(id)}">\``],
	["template element", (id) => `<template><img src=x onerror="${P(id)}"></template>`],
	["unicode tricks", (id) => `<img src=x oNeRrOr="${P(id)}"> \u202e<sCrIpT>${P(id)}</ScRiPt>`],
];

export const FIELDS = [
	"user text",
	"user text block",
	"assistant text",
	"thinking",
	"tool call name",
	"tool arguments",
	"tool output",
	"tool result name",
	"bash command",
	"bash output",
	"assistant error message",
	"custom_message content",
	"custom_message type",
	"custom type",
	"custom data",
	"branch summary",
	"compaction summary",
	"label",
	"session name",
	"model id",
	"thinking level",
];

const T0 = Date.parse("2026-03-01T10:00:00.000Z");

/**
 * A linear session (so keyboard "select parent" visits every entry) with every vector in every field.
 * Returns { text, vectors: [{ id, field, vector, sentinel }] }. The header's cwd and title carry one more.
 * `every` = 2 keeps every other vector (the bounded run).
 */
export function buildXssSession({ every = 1 } = {}) {
	const lines = [];
	const vectors = [];
	/** Sentinels per entry, in file order (index = entry index). */
	const entrySentinels = [];
	let pending = [];
	let seq = 0;
	let parent = null;
	const ts = () => new Date(T0 + seq * 1000).toISOString();
	const push = (entry) => {
		const id = `x${String(++seq).padStart(5, "0")}`;
		lines.push(JSON.stringify({ ...entry.head, id, parentId: parent, timestamp: ts(), ...entry.body }));
		entrySentinels.push(pending);
		pending = [];
		parent = id;
		return id;
	};
	const v = (field, vi) => {
		const id = vectors.length + 1;
		const sentinel = `XSSV-${FIELDS.indexOf(field)}-${vi}`;
		vectors.push({ id, field, vector: VECTORS[vi][0], sentinel });
		pending.push(sentinel);
		return `${sentinel} ${VECTORS[vi][1](id)}`;
	};
	for (let vi = 0; vi < VECTORS.length; vi += every) {
		const userId = push({ head: { type: "message" }, body: { message: { role: "user", content: v("user text", vi), timestamp: T0 } } });
		push({ head: { type: "message" }, body: { message: { role: "user", content: [{ type: "text", text: v("user text block", vi) }], timestamp: T0 } } });
		const callId = `call_${vi}`;
		push({
			head: { type: "message" },
			body: {
				message: {
					role: "assistant",
					content: [
						{ type: "thinking", thinking: v("thinking", vi) },
						{ type: "text", text: v("assistant text", vi) },
						{ type: "toolCall", id: callId, name: v("tool call name", vi), arguments: { path: v("tool arguments", vi), command: v("tool arguments", vi) } },
					],
					api: "anthropic-messages",
					provider: "anthropic",
					model: "claude-test",
					stopReason: "toolUse",
					usage: { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 20, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
					timestamp: T0,
				},
			},
		});
		push({
			head: { type: "message" },
			body: {
				message: {
					role: "toolResult",
					toolCallId: callId,
					toolName: v("tool result name", vi),
					content: [{ type: "text", text: v("tool output", vi) }],
					isError: false,
					timestamp: T0,
				},
			},
		});
		push({
			head: { type: "message" },
			body: { message: { role: "bashExecution", command: v("bash command", vi), output: v("bash output", vi), exitCode: 1, timestamp: T0 } },
		});
		push({
			head: { type: "message" },
			body: {
				message: {
					role: "assistant",
					content: [],
					api: "x",
					provider: "p",
					model: "m",
					stopReason: "error",
					errorMessage: v("assistant error message", vi),
					timestamp: T0,
				},
			},
		});
		push({ head: { type: "custom_message", customType: v("custom_message type", vi), content: v("custom_message content", vi), display: true } });
		push({ head: { type: "custom", customType: v("custom type", vi), data: { note: v("custom data", vi) } } });
		push({ head: { type: "branch_summary" }, body: { fromId: parent, summary: v("branch summary", vi) } });
		push({ head: { type: "compaction" }, body: { summary: v("compaction summary", vi), firstKeptEntryId: userId, tokensBefore: 1000 } });
		push({ head: { type: "label" }, body: { targetId: userId, label: v("label", vi) } });
		push({ head: { type: "session_info" }, body: { name: v("session name", vi) } });
		push({ head: { type: "model_change" }, body: { provider: "anthropic", modelId: v("model id", vi) } });
		push({ head: { type: "thinking_level_change" }, body: { thinkingLevel: v("thinking level", vi) } });
		// A final plain assistant turn so the next vector's entries are ordinary children again.
		push({
			head: { type: "message" },
			body: {
				message: { role: "assistant", content: [{ type: "text", text: `ok ${vi}` }], api: "x", provider: "p", model: "m", stopReason: "stop", timestamp: T0 },
			},
		});
	}
	const header = JSON.stringify({
		type: "session",
		version: 3,
		id: "xss-session",
		timestamp: new Date(T0).toISOString(),
		cwd: `/tmp/XSSV-cwd <img src=x onerror="${P(9001)}">`,
		title: `XSSV-title <img src=x onerror="${P(9002)}">`,
	});
	return { text: `${header}\n${lines.join("\n")}\n`, vectors, entries: seq, entrySentinels };
}

/** File names carrying vectors (no "/" is possible in a name). */
export const XSS_FILE_NAMES = [`xss-"><img src=x onerror="${P(9101)}">.jsonl`, `xss-<svg onload=${P(9102)}>.jsonl`];
