// Files embedded with `import path from '…' with { type: 'file' }` resolve to their path.
declare module '*/standalone.js' {
  const path: string;
  export default path;
}
