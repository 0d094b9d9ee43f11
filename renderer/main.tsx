// Renderer entry: one client (Electron bridge or the browser host's socket), the runtime, the app.

import { createRoot } from "react-dom/client";
import { App } from "./App";
import { createArborClient } from "./client";
import { graphActions } from "./graph/store";
import { createRuntime } from "./runtime";
import "./styles/app.css";

const runtime = createRuntime(createArborClient(), { graph: graphActions });
const root = document.getElementById("root");
if (root) createRoot(root).render(<App runtime={runtime} />);
