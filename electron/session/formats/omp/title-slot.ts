// omp 18.3's title slot: a fixed-width first line (`{"type":"title","v":1,…,"pad":"…"}`, 256 bytes with its
// "\n") that omp rewrites in place whenever the title changes. pi never writes one and refuses such files.
// The core keeps the line verbatim and re-reads it on every change check (live-file.ts); its shape as a type is
// shared/entries.ts TitleSlot (`getTitleSlot()`).

/** Bytes of the slot line including its "\n". */
export const TITLE_SLOT_BYTES = 256;

/** Whether a first record is a title line (omp's slot, or a third-party title line that misses its exact shape). */
export function isTitleRecord(first: Record<string, unknown>): boolean {
	return first.type === "title";
}

/** Whether a title line of `length` bytes (without "\n") has omp's exact fixed-width shape. */
export function hasSlotShape(slot: Record<string, unknown>, length: number): boolean {
	return typeof slot.pad === "string" && slot.v === 1 && length + 1 === TITLE_SLOT_BYTES;
}
