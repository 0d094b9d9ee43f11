// pi's and omp's folders, resolved in one place (agent-dirs.ts): "~" expansion, $PI_CODING_AGENT_DIR,
// the configured sessions folder, omp's roots, and the library listing its roots through them.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { expandHome, piAgentDir, piConfiguredSessionDir, piProjectSessionDir, piSessionsRoot } from "../formats/pi/dirs";
import { ompAgentDir, ompSessionRoots } from "../formats/omp/dirs";
import { projectDirName } from "../ids";
import { defaultSessionRoots } from "../library";

const tmp = () => mkdtempSync(join(tmpdir(), "arbor-agent-dirs-"));

describe("expandHome", () => {
	it("expands ~ and ~/x only", () => {
		expect(expandHome("~", "/h")).toBe("/h");
		expect(expandHome("~/a/b", "/h")).toBe("/h/a/b");
		expect(expandHome("~\\a", "/h")).toBe("/h/a");
		// Another user's home is not ours: "~bob/x" stays as written (it used to become <home>/bob/x).
		expect(expandHome("~bob/x", "/h")).toBe("~bob/x");
		expect(expandHome("/abs/~/x", "/h")).toBe("/abs/~/x");
	});
});

describe("pi's folders", () => {
	it("agent folder: $PI_CODING_AGENT_DIR with ~ expanded and made absolute, else ~/.pi/agent", () => {
		expect(piAgentDir({}, "/h")).toBe("/h/.pi/agent");
		expect(piAgentDir({ PI_CODING_AGENT_DIR: "~/custom" }, "/h")).toBe("/h/custom");
		expect(piAgentDir({ PI_CODING_AGENT_DIR: "~" }, "/h")).toBe("/h");
		expect(piAgentDir({ PI_CODING_AGENT_DIR: "rel/agent" }, "/h")).toBe(resolve("rel/agent"));
		expect(piAgentDir({ PI_CODING_AGENT_DIR: "" }, "/h")).toBe("/h/.pi/agent");
		expect(piSessionsRoot({ PI_CODING_AGENT_DIR: "~/custom" }, "/h")).toBe("/h/custom/sessions");
		expect(piProjectSessionDir("/work/app", { PI_CODING_AGENT_DIR: "~/custom" }, "/h")).toBe(join("/h/custom/sessions", projectDirName("/work/app")));
	});

	it("configured sessions folder: $PI_CODING_AGENT_SESSION_DIR, else settings.json's sessionDir (BOM allowed), ~ expanded", () => {
		const home = tmp();
		const agent = join(home, ".pi", "agent");
		mkdirSync(agent, { recursive: true });
		expect(piConfiguredSessionDir({}, agent, home)).toBeUndefined();
		writeFileSync(join(agent, "settings.json"), `\ufeff${JSON.stringify({ sessionDir: "~/my-sessions" })}`);
		expect(piConfiguredSessionDir({}, agent, home)).toBe(join(home, "my-sessions"));
		expect(piConfiguredSessionDir({ PI_CODING_AGENT_SESSION_DIR: "~/env-sessions" }, agent, home)).toBe(join(home, "env-sessions"));
		writeFileSync(join(agent, "settings.json"), JSON.stringify({ sessionDir: "  " }));
		expect(piConfiguredSessionDir({}, agent, home)).toBeUndefined();
		writeFileSync(join(agent, "settings.json"), "{ not json");
		expect(piConfiguredSessionDir({}, agent, home)).toBeUndefined();
	});
});

describe("omp's folders", () => {
	it("agent folder and every session root, profiles only when they exist", () => {
		const home = tmp();
		expect(ompAgentDir({}, home)).toBe(join(home, ".omp", "agent"));
		expect(ompAgentDir({ PI_CONFIG_DIR: ".omp-dev" }, home)).toBe(join(home, ".omp-dev", "agent"));
		expect(ompSessionRoots({}, home)).toEqual([join(home, ".omp", "agent", "sessions"), join(home, ".local", "share", "omp", "sessions")]);
		mkdirSync(join(home, ".omp", "profiles", "work"), { recursive: true });
		expect(ompSessionRoots({ OMP_CODING_AGENT_DIR: "~/omp5", XDG_DATA_HOME: "~/xdg" }, home)).toEqual([
			join(home, ".omp", "agent", "sessions"),
			join(home, "omp5", "sessions"),
			join(home, "xdg", "omp", "sessions"),
			join(home, ".omp", "profiles", "work", "agent", "sessions"),
		]);
	});
});

describe("the library", () => {
	it("the library lists the configured, the default and omp's roots through the same rule", () => {
		const home = tmp();
		for (const d of ["custom/sessions", "mine", ".omp/agent/sessions", "omp5/sessions"]) mkdirSync(join(home, d), { recursive: true });
		writeFileSync(join(home, "custom", "settings.json"), JSON.stringify({ sessionDir: "~/mine" }));
		const roots = defaultSessionRoots({ home, env: { PI_CODING_AGENT_DIR: "~/custom", OMP_CODING_AGENT_DIR: "~/omp5" } });
		expect(roots).toEqual([
			{ dir: join(home, "mine"), source: "pi" },
			{ dir: join(home, "custom", "sessions"), source: "pi" },
			{ dir: join(home, ".omp", "agent", "sessions"), source: "omp" },
			{ dir: join(home, "omp5", "sessions"), source: "omp" },
		]);
	});
});
