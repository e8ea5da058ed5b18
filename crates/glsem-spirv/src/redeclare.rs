//! Edits that change what a module already declares about an id (its decorations, its
//! name, its place in entry-point interfaces) or that declare something once (an
//! extension), beside [`Editor`]'s additions, and the lookups they need: glsem-run's link
//! passes move Locations, rename, re-decorate and split variables.

use spirv::{Decoration, Op};

use crate::module::{
    encode_string, entry_point_with_interface, Editor, Instruction, Module, Section,
};

impl Module<'_> {
    /// Indices of the instructions of `section`.
    pub fn section_range(&self, section: Section) -> std::ops::Range<usize> {
        let end = match section {
            Section::Function => self.insts.len(),
            _ => self.section_start(next_section(section)),
        };
        self.section_start(section)..end
    }

    /// Indices of the `OpDecorate id d …` instructions.
    pub fn decoration_indices(&self, id: u32, d: Decoration) -> impl Iterator<Item = usize> + '_ {
        self.section_range(Section::Annotation).filter(move |&i| {
            let inst = self.insts.at(i);
            inst.op() == Some(Op::Decorate) && inst.operand(0) == id && inst.operand(1) == d as u32
        })
    }

    /// The ids an `OpName` names `name`.
    pub fn ids_named<'s>(&'s self, name: &'s str) -> impl Iterator<Item = u32> + 's {
        self.names
            .iter()
            .filter(move |(_, n)| **n == name)
            .map(|(&id, _)| id)
    }

    /// Whether the module declares `OpExtension name`.
    pub fn declares_extension(&self, name: &str) -> bool {
        let wanted = encode_string(name);
        self.insts
            .range(self.section_range(Section::Extension))
            .any(|i| i.op() == Some(Op::Extension) && i.operands() == wanted.as_slice())
    }
}

fn next_section(section: Section) -> Section {
    match section {
        Section::Capability => Section::Extension,
        Section::Extension => Section::ExtInstImport,
        Section::ExtInstImport => Section::MemoryModel,
        Section::MemoryModel => Section::EntryPoint,
        Section::EntryPoint => Section::ExecutionMode,
        Section::ExecutionMode => Section::Debug,
        Section::Debug => Section::Annotation,
        Section::Annotation => Section::Global,
        Section::Global | Section::Function => Section::Function,
    }
}

impl Editor<'_, '_> {
    /// Gives `id` the one decoration `d` with `literals`, in place of any it has (once per
    /// id and decoration in an edit: an appended decoration is not looked at again).
    pub fn set_decoration(&mut self, id: u32, d: Decoration, literals: &[u32]) {
        self.remove_decoration(id, d);
        self.decorate(id, d, literals);
    }

    /// Removes the module's `OpDecorate id d` instructions.
    pub fn remove_decoration(&mut self, id: u32, d: Decoration) {
        let module = self.module;
        for index in module.decoration_indices(id, d) {
            self.remove(index);
        }
    }

    /// Names `id` `name`, in place of the module's `OpName` of it.
    pub fn rename(&mut self, id: u32, name: &str) {
        self.remove_name(id);
        self.add_debug_name(&Instruction::name(id, name));
    }

    /// Removes the module's `OpName` of `id`.
    pub fn remove_name(&mut self, id: u32) {
        let module = self.module;
        for index in module.section_range(Section::Debug) {
            let inst = module.insts.at(index);
            if inst.op() == Some(Op::Name) && inst.operand(0) == id {
                self.remove(index);
            }
        }
    }

    /// Puts `replace(id)`, where it is `Some`, in place of each id an entry point's
    /// interface lists (an empty list takes the id out); once per edit, as
    /// [`Editor::extend_interface`].
    pub fn replace_in_interfaces(&mut self, replace: impl Fn(u32) -> Option<Vec<u32>>) {
        let module = self.module;
        for ep in &module.entry_points {
            let mut interface = Vec::with_capacity(ep.interface.len());
            let mut changed = false;
            for &listed in &ep.interface {
                match replace(listed) {
                    Some(ids) => {
                        interface.extend(ids);
                        changed = true;
                    }
                    None => interface.push(listed),
                }
            }
            if changed {
                let words = entry_point_with_interface(&module.insts.at(ep.index), &interface);
                self.replace(ep.index, words);
            }
        }
    }

    /// `OpMemberName ty member name`.
    pub fn member_name(&mut self, ty: u32, member: u32, name: &str) {
        self.add_debug_name(&Instruction::member_name(ty, member, name));
    }

    /// An `OpName` or `OpMemberName`, before the module's first `OpModuleProcessed`, which
    /// ends the debug section after the names.
    fn add_debug_name(&mut self, name: &Instruction) {
        let module = self.module;
        let processed = module
            .section_range(Section::Debug)
            .find(|&i| module.insts.at(i).op() == Some(Op::ModuleProcessed));
        match processed {
            Some(index) => self.insert_before(index, name.as_words()),
            None => self.append_instruction(Section::Debug, name),
        }
    }

    /// Declares `OpExtension name` unless the module does (once per edit: an appended
    /// extension is not looked at again).
    pub fn add_extension(&mut self, name: &str) {
        if !self.module.declares_extension(name) {
            self.append_instruction(Section::Extension, &Instruction::extension(name));
        }
    }

    /// Removes the global instructions (types, constants, variables) that define the ids
    /// `gone` says go, and the names and decorations of those ids.
    pub fn remove_definitions(&mut self, gone: impl Fn(u32) -> bool) {
        let view = self.module;
        let described = view.section_start(Section::Debug)..view.section_start(Section::Global);
        for index in described.chain(view.section_range(Section::Global)) {
            let inst = view.insts.at(index);
            let target = match inst.op() {
                Some(Op::Name | Op::MemberName | Op::Decorate | Op::MemberDecorate) => {
                    Some(inst.operand(0))
                }
                _ => inst.result_id(),
            };
            if target.is_some_and(&gone) {
                self.remove(index);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use spirv::StorageClass;

    use super::*;
    use crate::module::{push_inst, MAGIC};

    /// `%var` (id 3), an Input float named "old" at Location 1 that entry point `main` lists.
    fn module() -> Vec<u32> {
        let mut w = vec![MAGIC, 0x0001_0000, 0, 8, 0];
        push_inst(&mut w, Op::Capability, &[spirv::Capability::Shader as u32]);
        push_inst(&mut w, Op::MemoryModel, &[0, 1]);
        let mut entry = vec![spirv::ExecutionModel::Vertex as u32, 4];
        entry.extend(encode_string("main"));
        entry.push(3);
        push_inst(&mut w, Op::EntryPoint, &entry);
        let mut name = vec![3];
        name.extend(encode_string("old"));
        push_inst(&mut w, Op::Name, &name);
        push_inst(&mut w, Op::Decorate, &[3, Decoration::Location as u32, 1]);
        push_inst(&mut w, Op::TypeFloat, &[1, 32]);
        push_inst(&mut w, Op::TypePointer, &[2, StorageClass::Input as u32, 1]);
        push_inst(&mut w, Op::Variable, &[2, 3, StorageClass::Input as u32]);
        w
    }

    #[test]
    fn a_set_decoration_and_a_rename_replace_the_old_ones() {
        let words = module();
        let m = Module::parse(&words).unwrap();
        assert_eq!(m.ids_named("old").collect::<Vec<_>>(), [3]);
        let mut editor = Editor::new(&m);
        editor.set_decoration(3, Decoration::Location, &[4]);
        editor.rename(3, "new");
        editor.add_extension("SPV_EXT_shader_viewport_index_layer");
        let edited = editor.finish().unwrap();
        let m = Module::parse(&edited).unwrap();
        assert_eq!(m.decoration(3, Decoration::Location), Some(&[4][..]));
        assert_eq!(m.decoration_indices(3, Decoration::Location).count(), 1);
        assert_eq!(m.ids_named("new").collect::<Vec<_>>(), [3]);
        assert_eq!(m.ids_named("old").count(), 0);
        assert!(m.declares_extension("SPV_EXT_shader_viewport_index_layer"));
    }

    #[test]
    fn remove_decoration_leaves_the_others() {
        let words = module();
        let m = Module::parse(&words).unwrap();
        let mut editor = Editor::new(&m);
        editor.remove_decoration(3, Decoration::Location);
        editor.remove_decoration(3, Decoration::Component);
        let edited = editor.finish().unwrap();
        let m = Module::parse(&edited).unwrap();
        assert!(!m.has_decoration(3, Decoration::Location));
        assert_eq!(m.section_range(Section::Global).len(), 3);
    }

    #[test]
    fn removed_definitions_take_their_names_and_decorations() {
        let words = module();
        let m = Module::parse(&words).unwrap();
        let mut editor = Editor::new(&m);
        editor.remove_definitions(|id| id == 3);
        let edited = editor.finish().unwrap();
        let m = Module::parse(&edited).unwrap();
        assert!(m.variable(3).is_none());
        assert_eq!(m.ids_named("old").count(), 0);
        assert!(!m.has_decoration(3, Decoration::Location));
        assert_eq!(m.section_range(Section::Global).len(), 2);
    }

    #[test]
    fn interfaces_list_the_replacements() {
        let words = module();
        let m = Module::parse(&words).unwrap();
        let mut editor = Editor::new(&m);
        editor.replace_in_interfaces(|id| (id == 3).then(|| vec![6, 7]));
        editor.member_name(1, 0, "unused");
        let edited = editor.finish().unwrap();
        let m = Module::parse(&edited).unwrap();
        assert_eq!(m.entry_points[0].interface, [6, 7]);
        assert_eq!(m.entry_points[0].name, "main");
    }
}
