/**
 * The commands the Tether language server answers through workspace/executeCommand.
 * Keep in step with lsp_server/commands.py: a test on the Python side compares the two lists.
 */
export const SERVER_COMMANDS = {
  add: "tether.add",
  confirm: "tether.confirm",
  invalidate: "tether.invalidate",
  supersede: "tether.supersede",
  reanchor: "tether.reanchor",
  showLearnings: "tether.showLearnings",
  showHistory: "tether.showHistory",
  staleCheck: "tether.staleCheck",
} as const;

export type ServerCommand = (typeof SERVER_COMMANDS)[keyof typeof SERVER_COMMANDS];

/** The commands this extension contributes to the command palette (package.json). */
export const CLIENT_COMMANDS = {
  addLearningHere: "tether.addLearningHere",
  showLearningsHere: "tether.showLearningsHere",
  runStaleCheck: "tether.runStaleCheck",
} as const;
