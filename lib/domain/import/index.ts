export { orderImportedStages, stageRank } from './stage-order';
