import { describe, expect, it } from "vitest";
import { errorDataOf } from "../errors";

function shaped(name: string, props: Record<string, unknown>, message = "m"): Error {
	const e = new Error(message);
	e.name = name;
	return Object.assign(e, props);
}

describe("errorDataOf: one mapping from a thrown value to the API's error", () => {
	it("a session-core error keeps its code, file and line", () => {
		expect(errorDataOf(shaped("SessionFileError", { code: "conflict", file: "/s.jsonl", line: 7 }))).toEqual({
			code: "conflict",
			message: "m",
			file: "/s.jsonl",
			line: 7,
		});
		expect(errorDataOf(shaped("SessionFileError", { code: "bad_file", file: "/s.jsonl" }))?.code).toBe("bad_file");
	});

	it("a service error keeps its code; a code the API does not know is a bug", () => {
		expect(errorDataOf(shaped("ArborServiceError", { code: "busy" }))).toEqual({ code: "busy", message: "m" });
		expect(errorDataOf(shaped("ArborServiceError", { code: "made_up" }))).toBeNull();
		expect(errorDataOf(shaped("SessionFileError", { code: "busy" }))).toBeNull();
	});

	it("a Node system error is not_found (ENOENT) or io, naming its path", () => {
		expect(errorDataOf(shaped("Error", { code: "ENOENT", syscall: "open", path: "/x" }))).toEqual({ code: "not_found", message: "m", file: "/x" });
		expect(errorDataOf(shaped("Error", { code: "EACCES", syscall: "open", path: "/y" }))?.code).toBe("io");
	});

	it("anything else is a bug (null: the router answers internal)", () => {
		expect(errorDataOf(new TypeError("x is undefined"))).toBeNull();
		expect(errorDataOf("a string")).toBeNull();
		expect(errorDataOf(shaped("Error", { code: "ERR_SOMETHING" }))).toBeNull();
	});
});
