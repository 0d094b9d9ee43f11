// Card styles and text for pi 1.6 / omp 18.3 kinds: each has its own style (never "unknown entry"), system
// patches read as "N sections set, M removed, a tools added", context edits name their target, usage folds into the
// parent's foot.
import { describe, expect, it } from "vitest";
import type { CardFacts } from "../../../shared/card-facts";
import { EntryKind } from "../../../shared/skeleton";
import { factsText, formatCost, kindStyle, systemPatchText, usageRollupText } from "../cards";
import { needsCardFacts } from "../../store/cards";

const sys = (over: Partial<NonNullable<CardFacts["system"]>>): CardFacts => ({
	kind: EntryKind.system,
	type: "message",
	role: "system",
	text: "[system]",
	system: {
		sectionsSet: 0,
		sectionsRemoved: 0,
		toolsAdded: 0,
		toolsRemoved: 0,
		contentChars: 0,
		sectionNames: [],
		toolsAddedNames: [],
		toolsRemovedNames: [],
		contentPreview: "",
		...over,
	},
});

describe("pi 1.6 / omp 18.3 card styles", () => {
	it("every new kind has its own style with a title and an icon, none the unknown one", () => {
		const unknown = kindStyle(EntryKind.unknown);
		for (let k = EntryKind.system; k <= EntryKind.credentialPin; k++) {
			const s = kindStyle(k);
			expect(s, `kind ${k}`).not.toBe(unknown);
			expect(s.title).not.toBe("unknown entry");
			expect(s.icon.length).toBeGreaterThan(0);
		}
		expect(kindStyle(EntryKind.system).title).toBe("system");
		expect(kindStyle(EntryKind.contextEdit).title).toBe("context edit");
		expect(kindStyle(EntryKind.resetBoundary).title).toBe("context cleared");
	});

	it("card facts are asked for the kinds whose preview says little, not for usage or old kinds", () => {
		expect(needsCardFacts(EntryKind.system)).toBe(true);
		expect(needsCardFacts(EntryKind.contextEdit)).toBe(true);
		expect(needsCardFacts(EntryKind.credentialPin)).toBe(true);
		expect(needsCardFacts(EntryKind.usage)).toBe(false);
		expect(needsCardFacts(EntryKind.user)).toBe(false);
		expect(needsCardFacts(EntryKind.unknown)).toBe(false);
	});
});

describe("factsText", () => {
	it("a full system prompt shows its first words; a patch shows its counts", () => {
		expect(factsText(sys({ contentPreview: "You are a careful coding agent working in this repository today, always.", contentChars: 70 }))).toBe(
			"You are a careful coding agent working in this repository …",
		);
		const patch = sys({ sectionsSet: 2, sectionsRemoved: 1, toolsAdded: 1, toolsRemoved: 0 });
		expect(factsText(patch)).toBe("2 sections set, 1 section removed, 1 tool added");
		expect(systemPatchText(patch.system!)).toBe("2 sections set, 1 section removed, 1 tool added");
		expect(factsText(sys({ sectionsSet: 1, contentPreview: "Be brief" }))).toBe("Be brief · 1 section set");
		// No zeros spelled out ("+5 sections / −0 / tools +4 −0" read as arithmetic).
		expect(systemPatchText(sys({ sectionsSet: 5, toolsAdded: 4 }).system!)).toBe("5 sections set, 4 tools added");
		expect(factsText(sys({}))).toBe("(no changes)");
	});

	it("a context edit names its mode and the target's row text (the id until the preview loads)", () => {
		const f: CardFacts = { kind: EntryKind.contextEdit, type: "context_edit", text: "", contextEdit: { targetId: "u1", mode: "omit", replacementText: "" } };
		expect(factsText(f)).toBe("context omit: u1");
		expect(factsText(f, "user: Find the flaky test")).toBe("context omit: Find the flaky test");
		expect(factsText({ ...f, contextEdit: { targetId: "a1", mode: "replace", replacementText: "x" } }, "assistant: It is")).toBe("context replace: It is");
	});

	it("omp records show their summary; facts without one fall back to the preview", () => {
		expect(factsText({ kind: EntryKind.modeChange, type: "mode_change", text: "", omp: { type: "mode_change", summary: "mode: plan" } })).toBe("mode: plan");
		expect(factsText({ kind: EntryKind.user, type: "message", text: "user: hi" })).toBeUndefined();
	});
});

describe("usage roll-up on the parent card", () => {
	it("cost and call count on the card, the cache-warming sentence in the tooltip", () => {
		const r = usageRollupText({ anchor: 3, lines: 2, tokens: 1800, cost: 0.0025 });
		expect(r.text).toBe("+$0.0025 ×2");
		expect(r.title).toContain("cache warming: 2 calls, 1,800 tokens, $0.0025");
		expect(usageRollupText({ anchor: 3, lines: 1, tokens: 0, cost: 0 }).text).toBe("+usage ×1");
		expect(formatCost(0)).toBe("");
		expect(formatCost(12.345)).toBe("$12.35");
	});
});
