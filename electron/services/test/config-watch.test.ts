// The model state follows pi's files (docs/summaries.md "Model"): models.json and settings.json written into
// pi's agent folder while Arbor runs (the folder did not even exist) reach clients as model_config_changed,
// and getActiveModel then names the model a summary really uses; removing models.json takes it away again.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ArborEvent } from "../../../shared/api";
import { ArborServices } from "../arbor-services";
import { tempDir } from "./helpers/entries";
import { type LlmServer, startLlmServer } from "./helpers/llm-server";
import { REAL_PI_MODEL, REAL_PI_PROVIDER, writeLoopbackAgentConfig } from "./helpers/real-pi";

let services: ArborServices | undefined;
let server: LlmServer | undefined;
afterEach(async () => {
	services?.dispose();
	await server?.close();
	services = server = undefined;
});

/** The next model_config_changed event. */
function nextChange(s: ArborServices): Promise<void> {
	return new Promise((resolve) => {
		const off = s.onEvent((e: ArborEvent) => {
			if (e.type !== "model_config_changed") return;
			off();
			resolve();
		});
	});
}

describe("pi's model configuration changes while Arbor runs", () => {
	it("a models.json added, then removed: clients are told, and the active model follows without a restart", async () => {
		server = await startLlmServer({ kind: "stream", chunks: ["unused"] });
		const home = tempDir("arbor-home-");
		const agent = path.join(home, ".pi", "agent");
		const env = { HOME: home, PATH: process.env.PATH ?? "" };
		services = new ArborServices({ settingsDir: path.join(home, ".arbor"), piAgentDir: agent, env, liveDir: null });
		expect(await services.getActiveModel({})).toBeNull();

		const added = nextChange(services);
		writeLoopbackAgentConfig(agent, server);
		await added;
		expect(await services.getActiveModel({})).toMatchObject({ provider: REAL_PI_PROVIDER, modelId: REAL_PI_MODEL, source: "pi-settings" });

		const removed = nextChange(services);
		fs.rmSync(path.join(agent, "models.json"));
		await removed;
		expect(await services.getActiveModel({})).toBeNull();
	}, 30_000);
});
