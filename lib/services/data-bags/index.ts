/** The data-bags feature's public face: data bags and items, their stage restrictions and team grants (their pages are read through search for now). Outside lib/services/data-bags/ only this file is imported. */
export {
  bagReadable,
  classifyItem,
  createDataBag,
  createDataBagItem,
  deleteDataBag,
  deleteDataBagItem,
  getDataBagItem,
  listDataBagItems,
  listDataBags,
  setDataBagGrant,
  setDataBagStages,
  updateDataBagItem,
  userBagLevel,
  userMayCreateBags,
} from './data-bags';
