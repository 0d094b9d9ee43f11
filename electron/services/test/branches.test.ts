// The Branches panel's table (shared/branches.ts) against a brute-force walk up from every leaf, on a real
// generated branching session; and its cost over a whole session equals the sum the roll-ups give the roots.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { computeBranches, nearestMarkedOnPath, promptOrLabelMatches, sortBranches } from "../../../shared/branches";
import { queryTokens, searchableText } from "../../../shared/preview";
import { labelsByIndex } from "../../../shared/tree-view";
import { billsParent } from "../../../shared/rollup";
import { EntryFlag, EntryKind } from "../../../shared/skeleton";
import { SessionManager } from "../../session";

const gen = resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "tools", "gen-session.mjs");

describe("branches (every leaf with its path's figures)", () => {
	it("match a walk from each leaf to the root on a generated 3k-entry branching session", () => {
		const file = join(mkdtempSync(join(tmpdir(), "arbor-branches-")), "s.jsonl");
		execFileSync(process.execPath, [gen, "--n", "3000", "--seed", "21", "--branch-every", "25", "--out", file]);
		const sm = SessionManager.open(file);
		const sk = sm.getSkeleton();
		const rows = computeBranches(sk);
		const childCount = new Int32Array(sk.count);
		for (let i = 0; i < sk.count; i++) if (sk.parent[i] >= 0 && !billsParent(sk.kind[i])) childCount[sk.parent[i]]++;
		const leaves = [...Array(sk.count).keys()].filter((i) => childCount[i] === 0 && !billsParent(sk.kind[i]));
		expect(rows.map((r) => r.leaf).sort((a, b) => a - b)).toEqual(leaves);
		expect(rows.length).toBeGreaterThan(20);
		for (const r of rows) {
			let entries = 0,
				tokens = 0,
				cost = 0,
				errors = 0,
				prompt = -1,
				last = NaN;
			for (let i = r.leaf; i >= 0; i = sk.parent[i]) {
				entries++;
				if (sk.kind[i] !== EntryKind.compaction) tokens += sk.tokens[i];
				cost += sk.cost[i];
				if (sk.flags[i] & EntryFlag.error) errors++;
				if (prompt < 0 && sk.kind[i] === EntryKind.user) prompt = i;
				if (Number.isFinite(sk.time[i]) && !(sk.time[i] <= last)) last = sk.time[i];
			}
			// Billing records hanging under a path entry count into it.
			for (let i = 0; i < sk.count; i++) {
				if (!billsParent(sk.kind[i]) || sk.parent[i] < 0) continue;
				for (let a = r.leaf; a >= 0; a = sk.parent[a]) if (a === sk.parent[i]) cost += sk.cost[i];
			}
			expect({ ...r, tokens: Math.round(r.tokens), cost: r.cost.toFixed(6) }).toEqual({
				leaf: r.leaf,
				prompt,
				entries,
				tokens: Math.round(tokens),
				cost: cost.toFixed(6),
				errors,
				last,
				active: r.leaf === sk.leaf,
			});
		}
		expect(rows.filter((r) => r.active)).toHaveLength(sk.leaf >= 0 && childCount[sk.leaf] === 0 ? 1 : 0);
		const byCost = sortBranches(rows, "cost");
		for (let i = 1; i < byCost.length; i++) expect(byCost[i - 1].cost).toBeGreaterThanOrEqual(byCost[i].cost);
		const byTime = sortBranches(rows, "newest");
		for (let i = 1; i < byTime.length; i++) expect(byTime[i - 1].last).toBeGreaterThanOrEqual(byTime[i].last);
		sm.close();
	});

	it("the filter finds the branches with a prompt or label holding the words anywhere on their path, as a walk from each leaf does", () => {
		const file = join(mkdtempSync(join(tmpdir(), "arbor-branches-")), "s.jsonl");
		execFileSync(process.execPath, [gen, "--n", "3000", "--seed", "29", "--branch-every", "25", "--out", file]);
		const sm = SessionManager.open(file);
		const sk = sm.getSkeleton();
		const entries = sm.getEntries();
		const labels = labelsByIndex(sk);
		const rows = computeBranches(sk);
		let some = 0;
		for (const query of ["cache", "render layout", '"the session"', "split index zoom"]) {
			const tokens = queryTokens(query);
			const near = nearestMarkedOnPath(sk, promptOrLabelMatches(sk, sm.search(query, "pi"), labels, query));
			// By hand: walk up from each leaf to the first user prompt or label that holds every word.
			const holds = (i: number): boolean => {
				const label = labels.get(i)?.toLowerCase() ?? "";
				if (label && tokens.every((t) => label.includes(t))) return true;
				if (sk.kind[i] !== EntryKind.user) return false;
				const text = searchableText(entries[i]).toLowerCase();
				return tokens.every((t) => text.includes(t) || label.includes(t));
			};
			let matched = 0;
			for (const r of rows) {
				let want = -1;
				for (let i = r.leaf; i >= 0 && want < 0; i = sk.parent[i]) if (holds(i)) want = i;
				expect(near[r.leaf], `${query}: leaf ${sk.ids[r.leaf]}`).toBe(want);
				if (want >= 0) matched++;
			}
			if (matched > 0 && matched < rows.length) some++;
		}
		// The queries tell branches apart (neither none nor all of them found).
		expect(some).toBeGreaterThan(1);
		sm.close();
	});
});
