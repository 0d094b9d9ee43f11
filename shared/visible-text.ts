// Invisible and bidirectional-control characters made visible wherever Arbor SHOWS session text (issue 39
// item 4, "Trojan Source"): a right-to-left override makes "\u202Eevil" read as "live", a zero-width space
// splits a word no one sees, tag characters (U+E0000–U+E007F) carry whole hidden sentences a model reads.
// Editors show them as placeholders (VS Code's highlighted boxes, `less`'s <U+202E>); so does Arbor: the UI
// as ⟨U+202E⟩ with the character's name in a tooltip, the CLI as <U+202E> (shared/terminal-text.ts). Only
// what is shown changes: the file, what is sent to a model and what is written keep every character.
//
// The set: the bidi controls (U+061C, U+200E/U+200F, U+202A–U+202E, U+2066–U+2069) and the invisible
// default-ignorable format characters: U+00AD, U+034F, U+115F/U+1160, U+17B4/U+17B5, U+180E, U+200B–U+200D,
// U+2060–U+206F (invisible operators, the deprecated format controls U+206A–U+206F, unassigned U+2065),
// U+3164, U+FEFF, U+FFA0, U+FFF9–U+FFFB, U+1D173–U+1D17A, the tags U+E0000–U+E007F. Kept as they are:
// variation selectors (emoji and CJK need them), U+2028/U+2029 (line breaks), visible spaces (U+00A0,
// U+2000–U+200A, U+202F, U+205F), a ZWJ inside an emoji sequence (👩‍💻) and a flag's short tag sequence
// (🏴 + 2–7 lower-case letters or digits + cancel tag): hiding those would break what the text means to show.

/** The hidden code points, as [first, last] ranges (a table, not a regex class: it holds joiners). */
const HIDDEN_RANGES: ReadonlyArray<readonly [number, number]> = [
	[0x00ad, 0x00ad],
	[0x034f, 0x034f],
	[0x061c, 0x061c],
	[0x115f, 0x1160],
	[0x17b4, 0x17b5],
	[0x180e, 0x180e],
	[0x200b, 0x200f],
	[0x202a, 0x202e],
	[0x2060, 0x206f],
	[0x3164, 0x3164],
	[0xfeff, 0xfeff],
	[0xffa0, 0xffa0],
	[0xfff9, 0xfffb],
	[0x1d173, 0x1d17a],
	[0xe0000, 0xe007f],
];
const ZWJ = 0x200d;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
const PICTOGRAPH = /^\p{Extended_Pictographic}$/u;
const isPictograph = (code: number): boolean => code >= 0xa9 && PICTOGRAPH.test(String.fromCodePoint(code));
/** A flag's tag letter or digit (🏴 + "gbsct" + cancel tag is Scotland's flag). */
const isFlagTag = (code: number): boolean => (code >= 0xe0030 && code <= 0xe0039) || (code >= 0xe0061 && code <= 0xe007a);

const NAMES: Record<number, string> = {
	0x00ad: "soft hyphen",
	0x034f: "combining grapheme joiner",
	0x061c: "Arabic letter mark",
	0x180e: "Mongolian vowel separator",
	0x200b: "zero-width space",
	0x200c: "zero-width non-joiner",
	0x200d: "zero-width joiner",
	0x200e: "left-to-right mark",
	0x200f: "right-to-left mark",
	0x202a: "left-to-right embedding",
	0x202b: "right-to-left embedding",
	0x202c: "pop directional formatting",
	0x202d: "left-to-right override",
	0x202e: "right-to-left override",
	0x2060: "word joiner",
	0x2061: "function application",
	0x2062: "invisible times",
	0x2063: "invisible separator",
	0x2064: "invisible plus",
	0x2066: "left-to-right isolate",
	0x2067: "right-to-left isolate",
	0x2068: "first strong isolate",
	0x2069: "pop directional isolate",
	0xfeff: "zero-width no-break space (byte order mark)",
};

/** U+XXXX, at least four hex digits. */
export function codePointName(code: number): string {
	return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Whether a code point is one Arbor shows as a placeholder (outside the kept sequences above). */
export function isHiddenChar(code: number): boolean {
	if (code < 0xad) return false;
	for (const [from, to] of HIDDEN_RANGES) if (code >= from && code <= to) return true;
	return false;
}

/** Whether a text holds no hidden character at all (the common case: no copy, no scan). */
function plain(s: string): boolean {
	for (let i = 0; i < s.length; i++) {
		const c = s.charCodeAt(i);
		// Tags (U+E00xx) and U+1D17x come as surrogate pairs led by U+DB40 / U+D834.
		if (c >= 0xad && (isHiddenChar(c) || c === 0xdb40 || c === 0xd834)) return false;
	}
	return true;
}

/**
 * The text split into plain runs and hidden characters (by code point), for a UI that marks them up. An
 * emoji ZWJ sequence and a flag's short tag sequence stay in the plain runs.
 */
export function visibleParts(s: string): Array<string | { code: number }> {
	if (plain(s)) return [s];
	const cps = Array.from(s, (ch) => ch.codePointAt(0) ?? 0);
	const out: Array<string | { code: number }> = [];
	let run = "";
	for (let i = 0; i < cps.length; i++) {
		const c = cps[i];
		if (c === BLACK_FLAG) {
			let j = i + 1;
			while (j < cps.length && j - i <= 8 && isFlagTag(cps[j])) j++;
			if (j - i - 1 >= 2 && j - i - 1 <= 7 && cps[j] === CANCEL_TAG) {
				run += String.fromCodePoint(...cps.slice(i, j + 1));
				i = j;
				continue;
			}
		}
		if (!isHiddenChar(c) || (c === ZWJ && joinsPictographs(cps, i))) {
			run += String.fromCodePoint(c);
			continue;
		}
		if (run) out.push(run);
		run = "";
		out.push({ code: c });
	}
	if (run || out.length === 0) out.push(run);
	return out;
}

/** A ZWJ between two pictographs (an emoji modifier or VS16 may sit before it): part of one emoji. */
function joinsPictographs(cps: readonly number[], i: number): boolean {
	let p = i - 1;
	if (p >= 0 && (cps[p] === 0xfe0f || (cps[p] >= 0x1f3fb && cps[p] <= 0x1f3ff))) p--;
	return p >= 0 && i + 1 < cps.length && isPictograph(cps[p]) && isPictograph(cps[i + 1]);
}

/** What the character is, for a tooltip: "U+202E right-to-left override". */
export function hiddenCharName(code: number): string {
	const name =
		NAMES[code] ??
		(code >= 0xe0000 && code <= 0xe007f
			? code >= 0xe0020 && code <= 0xe007e
				? `tag character (hidden "${String.fromCharCode(code - 0xe0000)}")`
				: "tag character"
			: code >= 0x2066 && code <= 0x206f
				? "invisible format character"
				: "invisible character");
	return `${codePointName(code)} ${name}`;
}

/** The UI's placeholder: ⟨U+202E⟩. */
export const uiMark = (code: number): string => `⟨${codePointName(code)}⟩`;

/** The text with every hidden character replaced by `mark(code)` (the UI's ⟨U+202E⟩ by default). */
export function visibleText(s: string, mark: (code: number) => string = uiMark): string {
	if (plain(s)) return s;
	return visibleParts(s)
		.map((p) => (typeof p === "string" ? p : mark(p.code)))
		.join("");
}

/** JSON text with every hidden character as \u escapes (surrogate pairs for the tags): the same JSON value. */
export function jsonVisible(json: string): string {
	if (plain(json)) return json;
	let out = "";
	for (const ch of json) {
		if (!isHiddenChar(ch.codePointAt(0) ?? 0)) out += ch;
		else for (let k = 0; k < ch.length; k++) out += `\\u${ch.charCodeAt(k).toString(16).padStart(4, "0")}`;
	}
	return out;
}
