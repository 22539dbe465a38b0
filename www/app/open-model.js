// The "Open model…" control: a model folder from the person's computer, picked as several files,
// as a whole folder, or dropped on the page (a folder or files). What it gathers is handed on as
// { folder, entries }: the folder's name (null for loose files) and [{ file, path }], the files
// directly inside a folder (its subfolders, e.g. checkpoints, are left alone). The worker picks the
// model's four files from them by name and reads them; nothing is uploaded.

/**
 * Wire the control: `filesButton` and `folderButton` open the hidden `filesInput` (multiple)
 * and `folderInput` (webkitdirectory); files dragged over `dropTarget` show `overlay`, and a drop
 * opens them. `onOpen({ folder, entries })` is called once per pick or drop; `onError(error)` when
 * a dropped folder cannot be listed.
 */
export function createOpenModel({ filesButton, folderButton, filesInput, folderInput, dropTarget, overlay, onOpen, onError }) {
  filesButton.addEventListener('click', () => filesInput.click());
  folderButton.addEventListener('click', () => folderInput.click());
  filesInput.addEventListener('change', () => {
    const entries = [...filesInput.files].map((file) => ({ file, path: file.name }));
    filesInput.value = '';
    if (entries.length) onOpen({ folder: null, entries });
  });
  folderInput.addEventListener('change', () => {
    const pick = folderPick([...folderInput.files]);
    folderInput.value = '';
    onOpen(pick);
  });

  // Drags enter and leave every element under the pointer: the overlay shows while the count of
  // entered elements is above zero.
  let entered = 0;
  const carriesFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes('Files');
  const showOverlay = (on) => {
    overlay.hidden = !on;
  };
  dropTarget.addEventListener('dragenter', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    entered += 1;
    showOverlay(true);
  });
  dropTarget.addEventListener('dragover', (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault(); // without it, the browser would open the file itself
    event.dataTransfer.dropEffect = 'copy';
    showOverlay(true);
  });
  dropTarget.addEventListener('dragleave', (event) => {
    if (!carriesFiles(event)) return;
    entered = Math.max(0, entered - 1);
    if (entered === 0) showOverlay(false);
  });
  dropTarget.addEventListener('drop', async (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    entered = 0;
    showOverlay(false);
    // The items can be read only while the event is dispatched: take them now, walk folders after.
    const items = [...event.dataTransfer.items]
      .filter((item) => item.kind === 'file')
      .map((item) => ({ entry: item.webkitGetAsEntry?.() ?? null, file: item.getAsFile() }));
    let pick;
    try {
      pick = await droppedPick(items);
    } catch (error) {
      onError(error);
      return;
    }
    onOpen(pick);
  });
}

/** The files an `<input webkitdirectory>` gave: those directly inside the folder picked. */
function folderPick(files) {
  const inside = files.filter((file) => file.webkitRelativePath.split('/').length === 2);
  const folder = files[0]?.webkitRelativePath.split('/')[0] || null;
  return { folder, entries: inside.map((file) => ({ file, path: file.webkitRelativePath })) };
}

/** What was dropped: loose files as they are, and the files directly inside each folder. */
async function droppedPick(items) {
  const entries = [];
  const folders = [];
  for (const { entry, file } of items) {
    if (entry?.isDirectory) {
      folders.push(entry.name);
      for (const child of await folderFiles(entry)) entries.push({ file: child, path: `${entry.name}/${child.name}` });
    } else if (file) {
      entries.push({ file, path: file.name });
    }
  }
  return { folder: folders.length === 1 ? folders[0] : null, entries };
}

/** The files (not subfolders) of a dropped folder's FileSystemDirectoryEntry. */
async function folderFiles(directory) {
  const reader = directory.createReader();
  const children = [];
  // readEntries answers in batches until it answers with none.
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) break;
    children.push(...batch);
  }
  const files = children.filter((child) => child.isFile);
  return Promise.all(files.map((child) => new Promise((resolve, reject) => child.file(resolve, reject))));
}
