// Which pi runs a session's tries: the live pi's own runtime when one is known for the file, else `pi` on PATH,
// else a clear error (issue 30). Real files in a temp folder stand for the programs.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NoPiError, piForSession } from "../tries";

let dir: string;
beforeEach(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-pi-choice-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function program(name: string, mode = 0o755): string {
	const file = path.join(dir, name);
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, "#!/bin/sh\n", { mode });
	return file;
}

describe("the pi that runs tries", () => {
	it("is the live pi's runtime and CLI when they are known for the file", () => {
		const execPath = program("runtime/node");
		const cliPath = program("pi/cli.js", 0o644);
		program("bin/pi");
		const pi = piForSession("/s.jsonl", (f) => (f === "/s.jsonl" ? { execPath, cliPath, pid: 42 } : undefined), { PATH: path.join(dir, "bin") });
		expect(pi).toEqual({ command: execPath, args: [cliPath], origin: "the live pi's runtime (pid 42)" });
	});

	it("is pi on PATH when no live runtime is known, or the one named no longer exists", () => {
		const onPath = program("bin/pi");
		const env = { PATH: `${path.join(dir, "empty")}${path.delimiter}${path.join(dir, "bin")}` };
		expect(piForSession("/s.jsonl", undefined, env)).toEqual({ command: onPath, args: [], origin: "pi on PATH" });
		expect(piForSession("/s.jsonl", () => ({ execPath: path.join(dir, "gone"), cliPath: path.join(dir, "gone.js"), pid: 1 }), env).command).toBe(onPath);
	});

	it("is an error that says how to get one when there is none (a pi that is not executable does not count)", () => {
		program("bin/pi", 0o644);
		expect(() => piForSession("/s.jsonl", undefined, { PATH: path.join(dir, "bin") })).toThrow(NoPiError);
		expect(() => piForSession("/s.jsonl", undefined, { PATH: path.join(dir, "bin") })).toThrow(/no pi to run the tries: install pi/);
	});
});
