// About Arbor: what it is, its license, and the open-source libraries it is built on. React Flow's own
// attribution box is hidden on the canvas (its MIT license allows that); it is credited here instead.

import { Modal } from "./Modal";

const CREDITS: { name: string; url: string; license: string; what: string }[] = [
	{ name: "React Flow (xyflow)", url: "https://reactflow.dev", license: "MIT", what: "the interactive graph canvas" },
	{ name: "React", url: "https://react.dev", license: "MIT", what: "the user interface" },
	{ name: "d3-hierarchy", url: "https://d3js.org/d3-hierarchy", license: "ISC", what: "the tree layout" },
	{ name: "zustand", url: "https://zustand.docs.pmnd.rs", license: "MIT", what: "the app's state" },
	{ name: "marked, DOMPurify, highlight.js", url: "https://marked.js.org", license: "MIT / Apache-2.0 / BSD-3-Clause", what: "entry text" },
	{ name: "pi-ai", url: "https://www.npmjs.com/package/@earendil-works/pi-ai", license: "MIT", what: "summary models, as pi uses them" },
];

export function AboutDialog() {
	return (
		<Modal title="About Arbor" testId="about-dialog">
			<p>Arbor draws a pi or oh-my-pi session as a graph and lets you steer it: move the leaf, summarize, branch, label, compare. MIT license.</p>
			<h3>Built with</h3>
			<ul className="about-credits" data-testid="about-credits">
				{CREDITS.map((c) => (
					<li key={c.name}>
						<a href={c.url} target="_blank" rel="noreferrer noopener">
							{c.name}
						</a>{" "}
						<span className="muted">
							({c.license}): {c.what}
						</span>
					</li>
				))}
			</ul>
		</Modal>
	);
}
