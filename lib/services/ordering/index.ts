/** The ordering feature's public face: saved ordering scenarios. Outside lib/services/ordering/ only this file is imported. */
export { scenariosFor } from './pages';
export { ZSaveScenarioInput, deleteScenario, saveScenario } from './scenarios';
