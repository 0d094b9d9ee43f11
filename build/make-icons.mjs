// Draws Arbor's app icon (a small session tree on a rounded square) and writes the files electron-builder
// takes from build/ (buildResources): icon.png (Linux, 512 px), icon.icns (macOS) and icon.ico (Windows,
// with the 256 px image it requires). Plain Node, no ImageMagick: PNG via zlib; the ICNS and ICO files
// embed PNG images, which both formats accept. The generated files are committed; run
// `node build/make-icons.mjs` after changing the drawing.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));

// The drawing, in a 0..1 square: tree nodes (x, y, r) and edges between them.
const NODES = [
	[0.5, 0.2, 0.075], // root
	[0.5, 0.42, 0.06],
	[0.3, 0.62, 0.06],
	[0.7, 0.62, 0.06],
	[0.3, 0.82, 0.06],
	[0.58, 0.82, 0.055],
	[0.82, 0.82, 0.055],
];
const EDGES = [
	[0, 1],
	[1, 2],
	[1, 3],
	[2, 4],
	[3, 5],
	[3, 6],
];
const LEAF = 4; // the leaf, in the accent colour
const BG = [0x1f, 0x5e, 0x46];
const FG = [0xf4, 0xf7, 0xf5];
const ACCENT = [0xf2, 0xb8, 0x4b];

function segDist(px, py, ax, ay, bx, by) {
	const dx = bx - ax;
	const dy = by - ay;
	const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
	return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

function inRoundedSquare(x, y) {
	const m = 0.06; // margin
	const r = 0.2; // corner radius
	if (x < m || y < m || x > 1 - m || y > 1 - m) return false;
	const cx = Math.min(Math.max(x, m + r), 1 - m - r);
	const cy = Math.min(Math.max(y, m + r), 1 - m - r);
	return Math.hypot(x - cx, y - cy) <= r;
}

/** The colour at a point, or null outside the icon. */
function sample(x, y) {
	if (!inRoundedSquare(x, y)) return null;
	for (const [i, [nx, ny, r]] of NODES.entries()) if (Math.hypot(x - nx, y - ny) <= r) return i === LEAF ? ACCENT : FG;
	for (const [a, b] of EDGES) {
		const [ax, ay] = NODES[a];
		const [bx, by] = NODES[b];
		if (segDist(x, y, ax, ay, bx, by) <= 0.018) return FG;
	}
	return BG;
}

function render(size) {
	const ss = 4; // 4x4 supersampling for smooth edges
	const rgba = Buffer.alloc(size * size * 4);
	for (let py = 0; py < size; py++) {
		for (let px = 0; px < size; px++) {
			let r = 0;
			let g = 0;
			let b = 0;
			let a = 0;
			for (let sy = 0; sy < ss; sy++) {
				for (let sx = 0; sx < ss; sx++) {
					const c = sample((px + (sx + 0.5) / ss) / size, (py + (sy + 0.5) / ss) / size);
					if (!c) continue;
					r += c[0];
					g += c[1];
					b += c[2];
					a++;
				}
			}
			const o = (py * size + px) * 4;
			if (a > 0) {
				rgba[o] = Math.round(r / a);
				rgba[o + 1] = Math.round(g / a);
				rgba[o + 2] = Math.round(b / a);
			}
			rgba[o + 3] = Math.round((255 * a) / (ss * ss));
		}
	}
	return rgba;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
	let c = n;
	for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
	return c >>> 0;
});
function crc32(buf) {
	let c = 0xffffffff;
	for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
	const len = Buffer.alloc(4);
	len.writeUInt32BE(data.length);
	const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(body));
	return Buffer.concat([len, body, crc]);
}

export function png(size) {
	const rgba = render(size);
	const raw = Buffer.alloc(size * (size * 4 + 1));
	for (let y = 0; y < size; y++) rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(size, 0);
	ihdr.writeUInt32BE(size, 4);
	ihdr[8] = 8; // bit depth
	ihdr[9] = 6; // RGBA
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk("IHDR", ihdr),
		chunk("IDAT", deflateSync(raw, { level: 9 })),
		chunk("IEND", Buffer.alloc(0)),
	]);
}

function icns(images) {
	const parts = images.map(([type, data]) => {
		const head = Buffer.alloc(8);
		head.write(type, 0, "ascii");
		head.writeUInt32BE(data.length + 8, 4);
		return Buffer.concat([head, data]);
	});
	const head = Buffer.alloc(8);
	head.write("icns", 0, "ascii");
	head.writeUInt32BE(8 + parts.reduce((n, p) => n + p.length, 0), 4);
	return Buffer.concat([head, ...parts]);
}

function ico(images) {
	const head = Buffer.alloc(6);
	head.writeUInt16LE(0, 0);
	head.writeUInt16LE(1, 2); // icon
	head.writeUInt16LE(images.length, 4);
	let offset = 6 + 16 * images.length;
	const dir = images.map(([size, data]) => {
		const e = Buffer.alloc(16);
		e[0] = size >= 256 ? 0 : size; // 0 means 256
		e[1] = size >= 256 ? 0 : size;
		e.writeUInt16LE(1, 4); // planes
		e.writeUInt16LE(32, 6); // bits per pixel
		e.writeUInt32LE(data.length, 8);
		e.writeUInt32LE(offset, 12);
		offset += data.length;
		return e;
	});
	return Buffer.concat([head, ...dir, ...images.map(([, d]) => d)]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const sizes = new Map([16, 32, 48, 128, 256, 512].map((s) => [s, png(s)]));
	writeFileSync(join(here, "icon.png"), sizes.get(512));
	// ic07/ic08/ic09: 128/256/512 px PNG
	writeFileSync(
		join(here, "icon.icns"),
		icns([
			["ic07", sizes.get(128)],
			["ic08", sizes.get(256)],
			["ic09", sizes.get(512)],
		]),
	);
	writeFileSync(join(here, "icon.ico"), ico([16, 32, 48, 256].map((s) => [s, sizes.get(s)])));
	process.stdout.write("wrote build/icon.png, build/icon.icns, build/icon.ico\n");
}
