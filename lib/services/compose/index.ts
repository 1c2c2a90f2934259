/** The compose feature's public face: composing a lock from a parent and includes, git repositories as include sources, the compose page. Outside lib/services/compose/ only this file is imported. */
export { composePolicy, type ComposeResult } from './compose';
export {
  ZRegisterGitRepositoryInput,
  deleteGitRepository,
  listGitRepositories,
  registerGitRepository,
  type GitRepositoryDto,
} from './git-repositories';
export { gitLocalRoot } from './git-source';
export { composeOptions } from './pages';
