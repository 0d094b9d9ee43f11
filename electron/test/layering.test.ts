// The layering rules of DESIGN.md as the lint rule `arbor/layers` (eslint/layers.mjs) enforces them on
// every `npm run lint`: one case per wall, so a loosened allow-list shows up here as a failing rule.
// (lint-walls.test.ts proves the rule fires through the real `npm run lint` on a scratch copy.)
import { describe, expect, it } from "vitest";
import { isTestFile, LAYERS, verdict as why } from "../../eslint/layers.mjs";

const ok = (file: string, spec: string) => expect(why(file, spec), `${file} -> ${spec}`).toBeNull();
const wall = (file: string, spec: string, message: RegExp) => expect(why(file, spec), `${file} -> ${spec}`).toMatch(message);

describe("layering (DESIGN.md import rules, as arbor/layers enforces them)", () => {
	it("shared/ is pure: only its own files, no node:*, no npm package, no electron", () => {
		ok("shared/tree-view.ts", "./skeleton");
		wall("shared/tree-view.ts", "node:fs", /shared\/ is pure: no Node built-ins \("node:fs"\)/);
		wall("shared/tree-view.ts", "path", /no Node built-ins/);
		wall("shared/tree-view.ts", "react", /shared\/ may not use npm package "react" \(allowed here: none\)/);
		wall("shared/tree-view.ts", "../electron/session/manager", /shared\/ may not import electron\/session\/manager/);
		wall("shared/tree-view.ts", "electron", /only electron\/hosts does/);
	});

	it("shared-node/ is Node code both ends of the live channel share: shared/ and node:* only, no npm package", () => {
		ok("shared-node/live-files.ts", "../shared/live");
		ok("shared-node/live-files.ts", "node:fs");
		ok("shared-node/live-files.ts", "./pid");
		wall("shared-node/live-files.ts", "zod", /shared-node\/ may not use npm package "zod" \(allowed here: none\)/);
		wall("shared-node/live-files.ts", "../electron/services/live/registry", /shared-node\/ may not import electron\/services\/live\/registry/);
		wall("shared-node/live-files.ts", "../pi-extension/channel", /shared-node\/ may not import pi-extension\/channel/);
		ok("pi-extension/channel.ts", "../shared-node/json-lines");
		ok("electron/services/live/connection.ts", "../../../shared-node/json-lines");
		ok("electron/hosts/electron/app.ts", "../../../shared-node/paths");
		ok("electron/cli/serve.ts", "../../shared-node/paths");
		wall("shared/live.ts", "../shared-node/pid", /shared\/ may not import shared-node\/pid/);
		wall("renderer/App.tsx", "../shared-node/paths", /renderer\/ may not import shared-node\/paths/);
		wall("electron/api/router.ts", "../../shared-node/paths", /electron\/api\/ may not import shared-node\/paths/);
	});

	it("electron/session imports only shared/ and node:*", () => {
		ok("electron/session/manager.ts", "../../shared/skeleton");
		ok("electron/session/manager.ts", "node:fs");
		wall("electron/session/manager.ts", "../services/index", /electron\/session\/ may not import electron\/services\/index/);
		wall("electron/session/manager.ts", "../api/router", /may not import electron\/api\/router/);
		wall("electron/session/manager.ts", "@earendil-works/pi-ai", /may not use npm package "@earendil-works\/pi-ai"/);
		wall("electron/session/manager.ts", "electron", /only electron\/hosts does/);
	});

	it("electron/services imports session + shared and its own npm packages", () => {
		ok("electron/services/summarizer.ts", "../session/index");
		ok("electron/services/summarizer.ts", "../../shared/api");
		ok("electron/services/pi-ai.ts", "@earendil-works/pi-ai/providers/all");
		ok("electron/services/compare.ts", "diff");
		wall("electron/services/compare.ts", "../api/router", /may not import electron\/api\/router/);
		wall("electron/services/compare.ts", "../hosts/browser/server", /may not import electron\/hosts\/browser\/server/);
		wall("electron/services/compare.ts", "zod", /may not use npm package "zod"/);
	});

	it("electron/api imports only shared/ (the services port is structural)", () => {
		ok("electron/api/router.ts", "../../shared/api");
		ok("electron/api/schemas.ts", "zod");
		wall("electron/api/router.ts", "../services/index", /electron\/api\/ may not import electron\/services\/index/);
		wall("electron/api/router.ts", "../session/manager", /may not import electron\/session\/manager/);
	});

	it("electron/cli uses services/session/api/shared and the browser host only for `arbor serve`", () => {
		ok("electron/cli/main.ts", "../services/index");
		ok("electron/cli/main.ts", "../api/router");
		ok("electron/cli/serve.ts", "../hosts/browser/server");
		ok("electron/cli/serve.ts", "../hosts/crash-guard");
		wall("electron/cli/main.ts", "../hosts/electron/app", /may not import electron\/hosts\/electron\/app/);
		wall("electron/cli/main.ts", "electron", /only electron\/hosts does/);
	});

	it("only electron/hosts imports `electron`, and hosts never import the renderer", () => {
		ok("electron/hosts/electron/app.ts", "electron");
		ok("electron/hosts/electron/app.ts", "electron-updater");
		ok("electron/hosts/browser/server.ts", "ws");
		ok("electron/hosts/browser/server.ts", "../../api/router");
		wall("electron/hosts/browser/server.ts", "../../../renderer/App", /renderer\/App \(the renderer is a separate app\)/);
		for (const f of [
			"shared/x.ts",
			"electron/session/x.ts",
			"electron/services/x.ts",
			"electron/api/x.ts",
			"electron/cli/x.ts",
			"renderer/x.ts",
			"bench/x.mjs",
			"scripts/x.mjs",
		])
			wall(f, "electron", /only electron\/hosts does/);
	});

	it("renderer/ imports only shared/ and its own npm packages, no node:*", () => {
		ok("renderer/App.tsx", "../shared/api");
		ok("renderer/App.tsx", "react");
		ok("renderer/graph/layout.ts", "d3-hierarchy");
		ok("renderer/store/app.ts", "zustand");
		wall("renderer/App.tsx", "node:fs", /renderer\/ is pure: no Node built-ins \("node:fs"\)/);
		wall("renderer/App.tsx", "../electron/api/router", /renderer\/ may not import electron\/api\/router/);
		wall("renderer/App.tsx", "ws", /renderer\/ may not use npm package "ws"/);
		wall("renderer/App.tsx", "diff", /may not use npm package "diff"/);
	});

	it("inside the renderer: the store is the ground floor, and the graph reaches neither the commands nor the panels", () => {
		ok("renderer/store/live.ts", "../../shared/skeleton");
		ok("renderer/store/index.ts", "zustand");
		wall(
			"renderer/store/events.ts",
			"../graph/facts",
			/renderer\/store\/ may not import renderer\/graph\/facts \(renderer\/store\/ may import only renderer\/store, shared\)/,
		);
		wall("renderer/store/live.ts", "../graph/streaming", /renderer\/store\/ may not import renderer\/graph\/streaming/);
		wall("renderer/store/flows.ts", "../commands/registry", /renderer\/store\/ may not import renderer\/commands\/registry/);
		wall("renderer/store/index.ts", "@xyflow/react", /renderer\/store\/ may not use npm package "@xyflow\/react"/);
		ok("renderer/graph/nodes.tsx", "../store/selectors");
		ok("renderer/graph/layout.ts", "d3-hierarchy");
		wall(
			"renderer/graph/nodes.tsx",
			"../commands/services",
			/renderer\/graph\/ may not import renderer\/commands\/services \(renderer\/graph\/ may import only renderer\/graph, shared, renderer\/store\)/,
		);
		wall("renderer/graph/FamilyBadge.tsx", "../commands/registry", /renderer\/graph\/ may not import renderer\/commands\/registry/);
		wall("renderer/graph/nodes.tsx", "../panels/StatusBar", /renderer\/graph\/ may not import renderer\/panels\/StatusBar/);
		wall("renderer/graph/nodes.tsx", "../compare/rollups", /renderer\/graph\/ may not import renderer\/compare\/rollups/);
		wall("renderer/graph/nodes.tsx", "node:fs", /renderer\/graph\/ is pure: no Node built-ins/);
		// Above them the rest of the renderer uses both; graph tests may drive the whole app.
		ok("renderer/panels/GraphPane.tsx", "../graph/SessionGraph");
		ok("renderer/panels/GraphPane.tsx", "../store/selectors");
		ok("renderer/graph/test/SessionGraph.live.test.tsx", "../../commands/registry");
		wall("renderer/graph/test/x.test.tsx", "../../../electron/services/index", /renderer\/graph\/ may not import electron\/services\/index/);
	});

	it("tests may use their own layer, test helpers, node:* and the reference writers, never a higher layer's code", () => {
		ok("shared/test/tree-view.test.ts", "node:fs");
		ok("shared/test/tree-view.test.ts", "@mariozechner/pi-coding-agent");
		ok("shared/test/pi16-writer.ts", "../../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js");
		ok("electron/session/test/x.test.ts", "../../../../shared/fixtures/sessions/a.jsonl");
		ok("electron/cli/test/serve.test.ts", "../../hosts/browser/test/ws-client");
		ok("renderer/client/test/client.test.ts", "../../../electron/hosts/browser/server");
		ok("electron/api/test/fuzz.test.ts", "../../services/index");
		wall("shared/test/tree-view.test.ts", "../../renderer/graph/layout", /shared\/ may not import renderer\/graph\/layout/);
		wall("electron/session/test/x.test.ts", "../../services/index", /electron\/session\/ may not import electron\/services\/index/);
		wall("electron/session/test/x.test.ts", "electron", /only electron\/hosts does/);
		wall("shared/test/x.test.ts", "react", /may not use npm package "react"/);
	});

	it("bench/, e2e/, scripts/ and build/ have walls too", () => {
		ok("bench/run.mjs", "../electron/session/manager");
		ok("bench/ui-baseline/prep.ts", "../../renderer/graph/layout");
		wall("bench/run.mjs", "../e2e/helpers", /bench\/ may not import e2e\/helpers/);
		ok("e2e/steer.spec.ts", "@playwright/test");
		ok("e2e/steer.spec.ts", "../electron/services/test/helpers/llm-server");
		wall("e2e/steer.spec.ts", "../renderer/App", /e2e\/ may not import renderer\/App/);
		wall("e2e/steer.spec.ts", "../electron/services/index", /e2e\/ may not import electron\/services\/index/);
		ok("scripts/reliability.mjs", "../bench/reliability/build.mjs");
		wall("scripts/reliability.mjs", "../electron/session/manager", /scripts\/ may not import electron\/session\/manager/);
		wall("scripts/start.mjs", "react", /scripts\/ may not use npm package "react"/);
		ok("build/build-main.mjs", "esbuild");
		wall("build/build-main.mjs", "../electron/session/manager", /build\/ may not import/);
	});

	it("every top folder of source code has a layer, and the test-file pattern is the one vitest uses", () => {
		const folders = LAYERS.map((l) => l.folder);
		for (const f of [
			"shared",
			"shared-node",
			"electron/session",
			"electron/services",
			"electron/api",
			"electron/cli",
			"electron/hosts",
			"renderer",
			"renderer/store",
			"renderer/graph",
			"e2e",
			"bench",
			"scripts",
			"build",
			"bin",
		])
			expect(folders).toContain(f);
		expect(isTestFile("renderer/graph/test/layout.test.ts")).toBe(true);
		expect(isTestFile("electron/services/testing/llm-server.ts")).toBe(true);
		expect(isTestFile("renderer/graph/layout.ts")).toBe(false);
	});
});
