// Node's types, empty, for the SPA's type check only (client/tsconfig.json lists this folder first
// in its typeRoots). The SPA runs in a browser: `process` or `Buffer` in client/src must fail. It
// reads the server's router type from the server's declarations, whose packages (pg, pino,
// express) ask for Node's types with `/// <reference types="node" />`; they get this file, and
// with skipLibCheck what they say of Node is not checked here (the server's own check does that).
export {};
