import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../index";
import { msg, ts, writeSession } from "./helpers";

const label = (id: string, parentId: string, targetId: string, text?: string) => ({
	type: "label",
	id,
	parentId,
	timestamp: ts(),
	targetId,
	...(text === undefined ? {} : { label: text }),
});

describe("labels", () => {
	it("the latest label entry for a target wins, an empty or absent label clears it", () => {
		const f = writeSession([
			msg("a", null, "user", "hi"),
			msg("b", "a", "assistant", "yo"),
			label("l1", "b", "a", "first"),
			label("l2", "l1", "a", "second"),
			label("l3", "l2", "b", "bee"),
			label("l4", "l3", "b", ""),
		]);
		const sm = SessionManager.open(f);
		expect(sm.getLabel("a")).toBe("second");
		expect(sm.getLabel("b")).toBeUndefined();
		expect(sm.getTree()[0].label).toBe("second");
	});

	it("labels are global to the file, not to the active branch", () => {
		const f = writeSession([msg("a", null, "user", "hi"), msg("b", "a", "assistant", "1"), msg("c", "a", "assistant", "2"), label("l", "c", "b", "on b")]);
		const sm = SessionManager.open(f);
		sm.branch("b");
		expect(sm.getLabel("b")).toBe("on b");
	});

	it("a label naming a missing entry is kept but labels nothing in the skeleton", () => {
		const f = writeSession([msg("a", null, "user", "hi"), label("l", "a", "ghost", "boo")]);
		const sm = SessionManager.open(f);
		expect(sm.getLabel("ghost")).toBe("boo");
		expect(sm.getSkeleton().labels).toEqual([]);
	});

	it("appendLabelChange validates the target, writes a label node under the leaf and moves the leaf", () => {
		const f = writeSession([msg("a", null, "user", "hi"), msg("b", "a", "assistant", "yo")]);
		const sm = SessionManager.open(f);
		expect(() => sm.appendLabelChange("nope", "x")).toThrow(/not found/);
		const id = sm.appendLabelChange("a", "checkpoint");
		expect(sm.getLeafId()).toBe(id);
		expect(sm.getEntry(id)).toMatchObject({ type: "label", parentId: "b", targetId: "a", label: "checkpoint" });
		const last = readFileSync(f, "utf8").trimEnd().split("\n").at(-1) as string;
		expect(JSON.parse(last)).toMatchObject({ type: "label", id, targetId: "a", label: "checkpoint" });
		const cleared = sm.appendLabelChange("a", undefined);
		expect(sm.getLabel("a")).toBeUndefined();
		const clearLine = JSON.parse(readFileSync(f, "utf8").trimEnd().split("\n").at(-1) as string) as Record<string, unknown>;
		expect(clearLine).toMatchObject({ id: cleared, targetId: "a" });
		expect("label" in clearLine).toBe(false);
		const reopened = SessionManager.open(f);
		expect(reopened.getLabel("a")).toBeUndefined();
		expect(reopened.getLeafId()).toBe(cleared);
	});

	it("the skeleton carries each resolved label with the time of the label entry that set it", () => {
		const l = label("l", "a", "a", "mark");
		const f = writeSession([msg("a", null, "user", "hi"), l]);
		const sm = SessionManager.open(f);
		expect(sm.getSkeleton().labels).toEqual([{ target: 0, label: "mark", time: Date.parse(l.timestamp) }]);
		expect(sm.getLabelTimestamp("a")).toBe(l.timestamp);
		expect(sm.getTree()[0].labelTimestamp).toBe(l.timestamp);
	});
});
