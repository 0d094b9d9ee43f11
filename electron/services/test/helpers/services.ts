// A services instance isolated from the developer's machine: temp Arbor and pi folders, empty environment.

import * as fs from "node:fs";
import * as path from "node:path";
import type { ArborEvent } from "../../../../shared/api";
import { ArborServices, type ArborServicesOptions } from "../../index";
import { tempDir } from "./entries";

export interface TestServices {
	services: ArborServices;
	events: ArborEvent[];
	dir: string;
	settingsDir: string;
	piAgentDir: string;
	of<T extends ArborEvent["type"]>(type: T): Extract<ArborEvent, { type: T }>[];
}

export function makeServices(opts: ArborServicesOptions = {}): TestServices {
	const dir = tempDir("arbor-svc-");
	const settingsDir = path.join(dir, "arbor");
	const piAgentDir = path.join(dir, "pi-agent");
	fs.mkdirSync(piAgentDir, { recursive: true });
	const services = new ArborServices({ settingsDir, piAgentDir, env: {}, watch: false, ...opts });
	const events: ArborEvent[] = [];
	services.onEvent((e) => events.push(e));
	return {
		services,
		events,
		dir,
		settingsDir,
		piAgentDir,
		of: <T extends ArborEvent["type"]>(type: T) => events.filter((e): e is Extract<ArborEvent, { type: T }> => e.type === type),
	};
}

/** Lines of a JSONL file, parsed. */
export function readLines(file: string): Record<string, unknown>[] {
	return fs
		.readFileSync(file, "utf8")
		.split("\n")
		.filter((l) => l.trim())
		.map((l) => JSON.parse(l) as Record<string, unknown>);
}
