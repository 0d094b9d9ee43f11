// pi 1.6.0's own example extensions, loaded from the installed package into Arbor's host: every one must load.

import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { ExtensionHost, type HostBindings } from "../extensions/host";
import type { ExtensionFailure } from "../extensions/types";

const EXAMPLES = path.resolve(__dirname, "../../../node_modules/@earendil-works/pi-coding-agent/examples/extensions");

const noBindings: HostBindings = {
	appendEntry: () => {},
	setLabel: () => {},
	setSessionName: () => {},
	getSessionName: () => undefined,
	notify: () => {},
};

/** Each example as pi counts them: a top-level module file, or a folder (its index / package.json `pi.extensions`). */
function examples(): string[] {
	return fs.readdirSync(EXAMPLES).filter((n) => n.endsWith(".ts") || fs.statSync(path.join(EXAMPLES, n)).isDirectory()).sort();
}

describe("pi 1.6.0 example extensions", () => {
	it("are all there (78 in the 1.6.0 package)", () => {
		expect(examples().length).toBe(78);
	});

	it("every one loads in Arbor's host without an error", async () => {
		const failures: ExtensionFailure[] = [];
		const host = new ExtensionHost({
			dirs: [],
			paths: examples().map((n) => path.join(EXAMPLES, n)),
			onFailure: (f) => failures.push(f),
			bindings: noBindings,
		});
		await host.ready();
		const report = failures.map((f) => `${path.relative(EXAMPLES, f.extension)}: ${f.message.split("\n")[0]}`);
		expect(report).toEqual([]);
		expect(host.extensions.length).toBe(78);
	}, 120_000);
});
