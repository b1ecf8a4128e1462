// Files embedded with `import path from '…' with { type: 'file' }` resolve to their path.
declare module '*/standalone.js' {
  const path: string;
  export default path;
}

// Text embedded with `import text from '…' with { type: 'text' }`: the shell script and unit a
// joining server downloads (src/http/daemon/v1/downloads.ts).
declare module '*.sh' {
  const text: string;
  export default text;
}
declare module '*.service' {
  const text: string;
  export default text;
}
