// Seeded generator of hostile session files for the fuzzing figure (docs/guarantees.md, issue 5).
// Each file is a mutated copy of a shared fixture or a generated session (../shared/tools/gen-session.mjs),
// or one of a fixed set of "special" files (deep nesting, 10^6 tiny lines, cycles, prototype-named ids...).
// Same seed and count => the same files, so a failing file can be regenerated and debugged.
//
//   node bench/reliability/fuzz-gen.mjs --seed 1 --count 200 --out DIR [--tiny-lines 1000000]

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const repoRoot = resolve(import.meta.dirname, "..", "..");
export const sharedDir = resolve(repoRoot, "..", "shared");
export const fixturesDir = join(sharedDir, "fixtures", "sessions");
export const genSessionTool = join(sharedDir, "tools", "gen-session.mjs");
export const cacheDir = join(repoRoot, "bench", ".cache", "reliability");

/** sfc32 seeded by xmur3: small, fast, reproducible across Node versions. */
export function makeRng(seed) {
	let h = 1779033703 ^ seed.length;
	for (let i = 0; i < seed.length; i++) {
		h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
		h = (h << 13) | (h >>> 19);
	}
	const next32 = () => {
		h = Math.imul(h ^ (h >>> 16), 2246822507);
		h = Math.imul(h ^ (h >>> 13), 3266489909);
		return (h ^= h >>> 16) >>> 0;
	};
	let a = next32(),
		b = next32(),
		c = next32(),
		d = next32();
	const rnd = () => {
		a >>>= 0;
		b >>>= 0;
		c >>>= 0;
		d >>>= 0;
		let t = (a + b) | 0;
		a = b ^ (b >>> 9);
		b = (c + (c << 3)) | 0;
		c = (c << 21) | (c >>> 11);
		d = (d + 1) | 0;
		t = (t + d) | 0;
		c = (c + t) | 0;
		return (t >>> 0) / 4294967296;
	};
	for (let i = 0; i < 12; i++) rnd();
	const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
	return { rnd, int, pick: (arr) => arr[Math.floor(rnd() * arr.length)], chance: (p) => rnd() < p };
}

/** Generated sessions used as mutation sources (cached: gen-session is deterministic). */
export function generatedSources() {
	const dir = join(cacheDir, "gen");
	mkdirSync(dir, { recursive: true });
	const specs = [
		{ name: "gen-300-s1.jsonl", args: ["--n", "300", "--seed", "fuzz-1"] },
		{ name: "gen-200-s2-custom.jsonl", args: ["--n", "200", "--seed", "fuzz-2", "--custom-messages", "0.5", "--branch-every", "8"] },
		{ name: "gen-120-s3-fixture.jsonl", args: ["--n", "120", "--seed", "fuzz-3", "--profile", "fixture", "--compaction-every", "30"] },
	];
	const out = [];
	for (const s of specs) {
		const p = join(dir, s.name);
		if (!existsSync(p)) execFileSync(process.execPath, [genSessionTool, ...s.args, "--out", p], { stdio: "ignore" });
		out.push(p);
	}
	return out;
}

export function fixtureSources() {
	return readdirSync(fixturesDir)
		.filter((f) => f.endsWith(".jsonl"))
		.sort()
		.map((f) => join(fixturesDir, f));
}

// ------------------------------------------------------------------ helpers on lines
const NL = 0x0a;
function splitLines(buf) {
	const lines = [];
	let start = 0;
	for (let i = 0; i < buf.length; i++) {
		if (buf[i] === NL) {
			lines.push(buf.subarray(start, i));
			start = i + 1;
		}
	}
	if (start < buf.length) lines.push(buf.subarray(start));
	return lines;
}
const joinLines = (lines, trailing = true) => {
	const parts = [];
	lines.forEach((l, i) => {
		parts.push(Buffer.from(l));
		if (trailing || i < lines.length - 1) parts.push(Buffer.from("\n"));
	});
	return Buffer.concat(parts);
};
function parseLines(buf) {
	return splitLines(buf).map((l) => {
		try {
			return JSON.parse(l.toString("utf8"));
		} catch {
			return undefined;
		}
	});
}
/** Re-serialize parsed lines; a line that cannot be (unparsable, or nested too deep to stringify) keeps its bytes. */
function toBuf(objs, buf) {
	const lines = splitLines(buf);
	const parts = objs.map((o, i) => {
		if (o === undefined) return lines[i] ?? Buffer.alloc(0);
		try {
			return Buffer.from(JSON.stringify(o));
		} catch {
			return lines[i] ?? Buffer.alloc(0);
		}
	});
	return joinLines(parts);
}
const entryIds = (objs) => objs.filter((o) => o && typeof o === "object" && typeof o.id === "string" && o.type !== "session").map((o) => o.id);

function safeLine(o, fallback) {
	try {
		return Buffer.from(JSON.stringify(o));
	} catch {
		return fallback;
	}
}

function wrongValue(r) {
	return r.pick([
		() => null,
		() => 0,
		() => -1,
		() => 1e308,
		() => 3.5,
		() => true,
		() => false,
		() => "",
		() => "x".repeat(r.int(1, 64)),
		() => [],
		() => [1, "a", null],
		() => ({}),
		() => ({ __proto__x: 1, constructor: "c" }),
		() => "__proto__",
		() => "constructor",
		() => "\u0000\u202e\ud800",
		() => ({ type: "text" }),
		() => [[[[["deep"]]]]],
		() => new Date(0).toISOString(),
		() => "not a date",
		() => -0,
		() => Number.MAX_SAFE_INTEGER + 2,
	])();
}

const FIELD_PATHS = [
	["type"],
	["id"],
	["parentId"],
	["timestamp"],
	["message"],
	["message", "role"],
	["message", "content"],
	["message", "content", 0],
	["message", "content", 0, "type"],
	["message", "content", 0, "text"],
	["message", "content", 1, "arguments"],
	["message", "content", 1, "name"],
	["message", "usage"],
	["message", "usage", "totalTokens"],
	["message", "stopReason"],
	["message", "toolCallId"],
	["message", "toolName"],
	["message", "timestamp"],
	["message", "errorMessage"],
	["message", "command"],
	["message", "output"],
	["label"],
	["targetId"],
	["summary"],
	["firstKeptEntryId"],
	["tokensBefore"],
	["customType"],
	["data"],
	["content"],
	["display"],
	["details"],
	["fromId"],
	["thinkingLevel"],
	["provider"],
	["modelId"],
	["model"],
	["name"],
	["version"],
	["cwd"],
	["parentSession"],
	["title"],
];
function setPath(obj, path, value) {
	let o = obj;
	for (let i = 0; i < path.length - 1; i++) {
		if (o === null || typeof o !== "object") return false;
		if (!(path[i] in o)) return false;
		o = o[path[i]];
	}
	if (o === null || typeof o !== "object") return false;
	o[path[path.length - 1]] = value;
	return true;
}

// ------------------------------------------------------------------ mutations (buf, rng, opts) -> buf
export const MUTATIONS = {
	truncate(buf, r) {
		return buf.subarray(0, r.int(0, buf.length));
	},
	randomBytes(buf, r) {
		const out = Buffer.from(buf);
		const n = r.int(1, 40);
		for (let i = 0; i < n && out.length; i++) out[r.int(0, out.length - 1)] = r.int(0, 255);
		return out;
	},
	insertGarbage(buf, r) {
		const at = r.int(0, buf.length);
		const junk = Buffer.alloc(r.int(1, 4000));
		for (let i = 0; i < junk.length; i++) junk[i] = r.int(0, 255);
		return Buffer.concat([buf.subarray(0, at), junk, buf.subarray(at)]);
	},
	glueLines(buf, r) {
		const lines = splitLines(buf);
		if (lines.length < 2) return buf;
		const glue = new Set();
		for (let i = r.int(1, Math.max(1, lines.length >> 2)); i > 0; i--) glue.add(r.int(0, lines.length - 2));
		const parts = [];
		lines.forEach((l, i) => {
			parts.push(l);
			parts.push(Buffer.from(glue.has(i) ? r.pick(["", " ", "\r", "\t"]) : "\n"));
		});
		return Buffer.concat(parts);
	},
	hugeLine(buf, r, opts) {
		const lines = splitLines(buf);
		const objs = parseLines(buf);
		const ids = entryIds(objs);
		const size = r.int(1, opts.hugeMiB) * 1024 * 1024;
		const kind = r.int(0, 3);
		let line;
		if (kind === 0) {
			const text = "H".repeat(size);
			line = JSON.stringify({
				type: "message",
				id: "huge0001",
				parentId: ids.length ? r.pick(ids) : null,
				timestamp: new Date(1.7e12).toISOString(),
				message: { role: "user", content: [{ type: "text", text }] },
			});
		} else if (kind === 1)
			line = `{"type":"message","id":"huge0002","message":{"role":"assistant","content":"${"A".repeat(size)}`; // never closed
		else if (kind === 2) line = " ".repeat(size);
		else
			line = JSON.stringify({
				type: "custom",
				customType: "big",
				id: "huge0003",
				parentId: ids.length ? r.pick(ids) : null,
				timestamp: "x",
				data: Array.from({ length: size >> 4 }, (_, i) => i),
			});
		lines.splice(r.int(1, lines.length), 0, Buffer.from(line));
		return joinLines(lines);
	},
	deepNesting(buf, r) {
		const lines = splitLines(buf);
		const depth = r.pick([10_000, 10_000, 50_000]);
		const ids = entryIds(parseLines(buf));
		const parent = JSON.stringify(ids.length ? r.pick(ids) : null);
		const open = "[".repeat(depth),
			close = "]".repeat(depth);
		const objOpen = '{"a":'.repeat(depth),
			objClose = "}".repeat(depth);
		const variants = [
			`{"type":"message","id":"deep0001","parentId":${parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":${open}${close}}}`,
			`{"type":"message","id":"deep0002","parentId":${parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"bash","arguments":${objOpen}1${objClose}}]}}`,
			`{"type":"custom","customType":"deep","data":${objOpen}null${objClose},"id":"deep0003","parentId":${parent},"timestamp":"2026-01-01T00:00:00.000Z"}`,
			`{"type":"label","id":"deep0004","parentId":${parent},"timestamp":"2026-01-01T00:00:00.000Z","targetId":${parent},"label":${open}"x"${close}}`,
			`${open}${close}`,
			`${open}`, // unterminated
		];
		lines.splice(r.int(1, lines.length), 0, Buffer.from(r.pick(variants)));
		return joinLines(lines);
	},
	cycles(buf, r) {
		const objs = parseLines(buf);
		const entries = objs.filter((o) => o && typeof o === "object" && typeof o.id === "string" && o.type !== "session");
		if (entries.length < 2) return buf;
		const kind = r.int(0, 2);
		if (kind === 0) {
			const e = r.pick(entries);
			e.parentId = e.id;
		} else if (kind === 1) {
			const a = r.pick(entries),
				b = r.pick(entries);
			a.parentId = b.id;
			b.parentId = a.id;
		} else {
			// a longer loop through the last entry (the default leaf), so context building walks into it
			const last = entries[entries.length - 1];
			let e = last;
			for (let i = 0; i < r.int(2, 30) && e; i++) e = entries.find((x) => x.id === e.parentId);
			if (e) e.parentId = last.id;
			else entries[0].parentId = last.id;
		}
		return toBuf(objs, buf);
	},
	duplicateIds(buf, r) {
		const lines = splitLines(buf);
		const objs = parseLines(buf);
		const idx = objs.map((o, i) => (o && typeof o.id === "string" && o.type !== "session" ? i : -1)).filter((i) => i >= 0);
		if (!idx.length) return buf;
		for (let k = r.int(1, 5); k > 0; k--) {
			if (r.chance(0.5)) {
				lines.splice(r.int(1, lines.length), 0, lines[r.pick(idx)]); // whole line again
			} else {
				const target = r.pick(idx);
				const o = objs[target];
				o.id = objs[r.pick(idx)].id;
				lines[target] = safeLine(o, lines[target]);
			}
		}
		return joinLines(lines);
	},
	wrongTypes(buf, r) {
		const lines = splitLines(buf);
		const objs = parseLines(buf);
		const idx = objs.map((o, i) => (o && typeof o === "object" ? i : -1)).filter((i) => i >= 0);
		if (!idx.length) return buf;
		for (let k = r.int(1, 12); k > 0; k--) {
			const i = r.pick(idx);
			const o = objs[i];
			for (let tries = 0; tries < 8; tries++) if (setPath(o, r.pick(FIELD_PATHS), wrongValue(r))) break;
			lines[i] = safeLine(o, lines[i]);
		}
		if (r.chance(0.2)) lines[r.pick(idx)] = Buffer.from(JSON.stringify(wrongValue(r)));
		return joinLines(lines);
	},
	invalidUtf8(buf, r) {
		const seqs = [[0xff], [0xfe], [0xc0, 0x80], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80], [0xc3], [0xf4, 0x90, 0x80, 0x80]];
		const out = [];
		let pos = 0;
		const n = r.int(1, 20);
		const points = Array.from({ length: n }, () => r.int(0, buf.length)).sort((a, b) => a - b);
		for (const p of points) {
			out.push(buf.subarray(pos, p), Buffer.from(r.pick(seqs)));
			pos = p;
		}
		out.push(buf.subarray(pos));
		return Buffer.concat(out);
	},
	bom(buf) {
		return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), buf]);
	},
	crlf(buf, r) {
		const s = buf.toString("latin1");
		const mode = r.int(0, 2);
		if (mode === 0) return Buffer.from(s.replace(/\n/g, "\r\n"), "latin1");
		if (mode === 1)
			return Buffer.from(
				s.replace(/\n/g, () => (r.chance(0.5) ? "\r\n" : "\n")),
				"latin1",
			);
		return Buffer.from(
			s.replace(/\n/g, () => (r.chance(0.3) ? "\r" : "\n")),
			"latin1",
		);
	},
	headerMangling(buf, r) {
		const lines = splitLines(buf);
		const objs = parseLines(buf);
		const h = objs.findIndex((o) => o && o.type === "session");
		const kind = r.int(0, 6);
		if (kind === 0 && h >= 0) lines.splice(h, 1);
		else if (kind === 1 && h >= 0) lines.push(lines[h]);
		else if (kind === 2 && h >= 0) {
			objs[h].version = r.pick(["1", "2", "3", 99, -1, 0, null, "abc", 2.5, [3]]);
			lines[h] = safeLine(objs[h], lines[h]);
		} else if (kind === 3)
			lines.unshift(
				Buffer.from(
					JSON.stringify({ type: "title", v: 1, title: "t".repeat(r.int(0, 300)), updatedAt: "2026-01-01T00:00:00.000Z", pad: " ".repeat(r.int(0, 200)) }),
				),
			);
		else if (kind === 4 && h >= 0) {
			const moved = lines.splice(h, 1)[0];
			lines.splice(r.int(0, lines.length), 0, moved);
		} else if (kind === 5 && h >= 0) {
			objs[h].id = wrongValue(r);
			lines[h] = safeLine(objs[h], lines[h]);
		} else lines.unshift(Buffer.from(r.pick(["", "   ", "null", "[]", '"session"', "{}", '{"type":"session"}'])));
		return joinLines(lines);
	},
	protoIds(buf, r) {
		const objs = parseLines(buf);
		const names = ["__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "valueOf", "root", "null", "undefined", ""];
		const entries = objs.filter((o) => o && typeof o === "object" && o.type !== "session" && "id" in o);
		for (let k = r.int(1, 6); k > 0 && entries.length; k--) {
			const e = r.pick(entries);
			const old = e.id;
			e.id = r.pick(names);
			for (const c of entries) if (c.parentId === old) c.parentId = e.id;
			if (r.chance(0.3)) objs.push({ type: "label", id: `l${k}`, parentId: e.id, timestamp: "2026-01-01T00:00:00.000Z", targetId: e.id, label: r.pick(names) });
		}
		return toBuf(objs, buf);
	},
	weirdReferences(buf, r) {
		const objs = parseLines(buf);
		const entries = objs.filter((o) => o && typeof o === "object" && typeof o.id === "string" && o.type !== "session");
		if (!entries.length) return buf;
		const ts = "2026-01-01T00:00:00.000Z";
		const some = () => r.pick(entries).id;
		const last = entries[entries.length - 1].id;
		const extra = [
			{ type: "compaction", id: "wr-c1", parentId: last, timestamp: ts, summary: "s", firstKeptEntryId: r.pick(["wr-c1", "missing", some()]), tokensBefore: 5 },
			{ type: "branch_summary", id: "wr-b1", parentId: some(), timestamp: ts, fromId: r.pick(["root", "missing", some()]), summary: "" },
			{ type: "label", id: "wr-l1", parentId: some(), timestamp: ts, targetId: "missing", label: "nowhere" },
			{ type: "label", id: "wr-l2", parentId: "wr-l1", timestamp: ts, targetId: "wr-l2", label: "self" },
			{ type: "message", id: "wr-m1", parentId: "wr-m1", timestamp: ts, message: { role: "toolResult", toolCallId: "nope", toolName: "read", content: [] } },
		];
		for (const e of extra) if (r.chance(0.6)) objs.push(e);
		return toBuf(objs, buf);
	},
};

// ------------------------------------------------------------------ special files (always in the corpus)
function deepChain(n, tiny) {
	const parts = ['{"type":"session","version":3,"id":"deep-chain","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}'];
	let parent = "null";
	for (let i = 0; i < n; i++) {
		const id = `c${i.toString(36)}`;
		parts.push(
			tiny
				? `{"type":"custom","customType":"t","id":"${id}","parentId":${parent},"timestamp":"2026-01-01T00:00:00.000Z"}`
				: `{"type":"message","id":"${id}","parentId":${parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"${i % 2 ? "assistant" : "user"}","content":[{"type":"text","text":"m${i}"}]}}`,
		);
		parent = `"${id}"`;
	}
	return Buffer.from(parts.join("\n") + "\n");
}

export function specialFiles(opts) {
	const header = '{"type":"session","version":3,"id":"special","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}\n';
	const tiny = opts.tinyLines;
	const rand = makeRng("special");
	const binary = Buffer.alloc(64 * 1024);
	for (let i = 0; i < binary.length; i++) binary[i] = rand.int(0, 255);
	return [
		["empty", Buffer.alloc(0)],
		["only-newlines", Buffer.from("\n\n\n\n")],
		["only-whitespace", Buffer.from(" \t \r\n  \n")],
		["nul-bytes", Buffer.alloc(4096)],
		["random-binary", binary],
		["header-only-no-eol", Buffer.from(header.trimEnd())],
		["bom-header", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(header)])],
		[`tiny-lines-${tiny}-empty-objects`, Buffer.from(header + "{}\n".repeat(tiny))],
		[`tiny-lines-${tiny}-blank`, Buffer.from(header + "\n".repeat(tiny))],
		[`tiny-lines-${tiny}-chain`, deepChain(tiny, true)],
		["chain-100000-messages", deepChain(Math.min(100_000, tiny), false)],
		["deep-array-10k-line", Buffer.from(header + "[".repeat(10_000) + "]".repeat(10_000) + "\n")],
		[
			"deep-content-10k",
			MUTATIONS.deepNesting(
				Buffer.from(header + '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}\n'),
				{ pick: (a) => a[0], int: (lo) => lo, chance: () => true },
			),
		],
		[
			"self-parent-leaf",
			Buffer.from(header + '{"type":"message","id":"a","parentId":"a","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"loop"}}\n'),
		],
		[
			"two-cycle-leaf",
			Buffer.from(
				header +
					'{"type":"message","id":"a","parentId":"b","timestamp":"t","message":{"role":"user","content":"a"}}\n{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"assistant","content":[]}}\n',
			),
		],
		[
			"proto-ids",
			Buffer.from(
				header +
					["__proto__", "constructor", "toString"]
						.map(
							(id, i, a) =>
								`{"type":"message","id":"${id}","parentId":${i ? `"${a[i - 1]}"` : null},"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"${id}"}}`,
						)
						.join("\n") +
					'\n{"type":"label","id":"hasOwnProperty","parentId":"toString","timestamp":"2026-01-01T00:00:00.000Z","targetId":"__proto__","label":"__proto__"}\n',
			),
		],
		[
			"entries-without-header",
			Buffer.from('{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"no header"}}\n'),
		],
		[
			"lone-cr-separators",
			Buffer.from((header + '{"type":"message","id":"a","parentId":null,"timestamp":"x","message":{"role":"user","content":"cr"}}\n').replace(/\n/g, "\r")),
		],
	];
}

/**
 * Write the corpus. opts: { seed, count, outDir, tinyLines, hugeMiB }. Returns [{ path, recipe }].
 * `count` mutated files are written in addition to the special files.
 */
export function generateCorpus(opts) {
	const { seed = "1", count = 100, outDir, tinyLines = 100_000, hugeMiB = 4 } = opts;
	mkdirSync(outDir, { recursive: true });
	const sources = [...fixtureSources(), ...generatedSources()];
	const sourceBytes = sources.map((p) => readFileSync(p));
	const out = [];
	for (const [name, bytes] of specialFiles({ tinyLines })) {
		const p = join(outDir, `special-${name}.jsonl`);
		writeFileSync(p, bytes);
		out.push({ path: p, recipe: `special:${name}` });
	}
	const names = Object.keys(MUTATIONS);
	for (let i = 0; i < count; i++) {
		const r = makeRng(`${seed}:${i}`);
		const si = r.int(0, sources.length - 1);
		let buf = sourceBytes[si];
		const steps = [];
		for (let k = r.int(1, 3); k > 0; k--) {
			let m = r.pick(names);
			// keep the huge mutations rare so the run time stays bounded
			if ((m === "hugeLine" || m === "deepNesting") && !r.chance(0.35)) m = r.pick(["wrongTypes", "truncate", "glueLines", "cycles"]);
			buf = MUTATIONS[m](buf, r, { hugeMiB });
			steps.push(m);
		}
		const src = sources[si]
			.split("/")
			.pop()
			.replace(/\.jsonl$/, "");
		const p = join(outDir, `m${String(i).padStart(4, "0")}-${src}-${steps.join("+")}.jsonl`);
		writeFileSync(p, buf);
		out.push({ path: p, recipe: `${src}:${steps.join("+")}` });
	}
	return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const a = process.argv.slice(2);
	const get = (k, d) => (a.includes(k) ? a[a.indexOf(k) + 1] : d);
	const files = generateCorpus({
		seed: get("--seed", "1"),
		count: Number(get("--count", "100")),
		outDir: resolve(get("--out", join(cacheDir, "corpus"))),
		tinyLines: Number(get("--tiny-lines", "100000")),
		hugeMiB: Number(get("--huge-mib", "4")),
	});
	process.stdout.write(`${files.length} files written\n`);
}
