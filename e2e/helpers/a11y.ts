// axe-core on the page (issue #11): no serious or critical WCAG 2.1 A/AA violation. Shared by the specs that
// check a view's accessibility (e2e/a11y.spec.ts: every dialog; the tries' Compare dialog).
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

export async function expectNoSeriousViolations(page: Page, where: string): Promise<void> {
	const r = await new AxeBuilder({ page }).withTags(TAGS).analyze();
	const bad = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
	const report = bad.map(
		(v) =>
			`${v.id} (${v.impact}): ${v.help}\n  ${v.nodes
				.slice(0, 4)
				.map((n) => `${n.target.join(" ")} — ${n.failureSummary?.split("\n").slice(0, 2).join(" ")}`)
				.join("\n  ")}`,
	);
	expect(report, `axe on ${where}`).toEqual([]);
}
