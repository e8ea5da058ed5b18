//! What `vkCreateDevice` gives the rules under `VK_GLSEM_gl_state` (`rules::setup_device`):
//! the application's create info, the driver's extensions and features, and what the device
//! is created with, which each rule extends with the extensions, feature structs and core
//! features its conventions need. The device hook names no rule.

use ash::vk;
use std::ffi::{c_char, CStr};

use crate::layer::loader::state::{Adopted, Conventions, EnabledFeatures, InstanceData};
use crate::layer::support::ffi::{find_in_chain, link_in_front};
use crate::layer::support::settings::Settings;

/// A feature struct a rule chains in front of the create info the driver gets.
pub trait AddedFeature {
    /// Links the struct in front of `ci`'s `pNext` chain.
    fn link(&mut self, ci: &mut vk::DeviceCreateInfo<'_>);
}

impl<F: vk::TaggedStructure + vk::ExtendsDeviceCreateInfo> AddedFeature for F {
    fn link(&mut self, ci: &mut vk::DeviceCreateInfo<'_>) {
        link_in_front(ci, self);
    }
}

/// One `vkCreateDevice` under `VK_GLSEM_gl_state`, as the rules see it.
pub struct DeviceSetup<'a> {
    inst: &'a InstanceData,
    physical_device: vk::PhysicalDevice,
    ci: &'a vk::DeviceCreateInfo<'a>,
    app_extensions: &'a [&'a CStr],
    driver_extensions: Vec<vk::ExtensionProperties>,
    /// The extensions passed down: the application's without the layer's, and what the
    /// rules enable.
    pub extensions: Vec<*const c_char>,
    /// The feature structs the rules chain (boxed: the chain points into them).
    pub added: Vec<Box<dyn AddedFeature>>,
    /// The core features the rules want where the application passes `pEnabledFeatures`
    /// (enabled where the driver has them).
    pub core_wanted: vk::PhysicalDeviceFeatures,
    /// The features the device is created with, as the rewrites read them.
    pub features: EnabledFeatures,
    /// What the device's pipelines can take (`DeviceData::conventions`).
    pub conventions: Conventions,
}

impl<'a> DeviceSetup<'a> {
    /// # Safety
    /// `ci` is a valid device create info with a valid `pNext` chain, and `physical_device`
    /// a physical device of `inst`.
    pub unsafe fn new(
        inst: &'a InstanceData,
        physical_device: vk::PhysicalDevice,
        ci: &'a vk::DeviceCreateInfo<'a>,
        app_extensions: &'a [&'a CStr],
        extensions: Vec<*const c_char>,
        features: EnabledFeatures,
    ) -> DeviceSetup<'a> {
        DeviceSetup {
            inst,
            physical_device,
            ci,
            app_extensions,
            // SAFETY: `physical_device` belongs to `inst` (this function's contract).
            driver_extensions: unsafe { driver_extensions(inst, physical_device) },
            extensions,
            added: Vec::new(),
            core_wanted: vk::PhysicalDeviceFeatures::default(),
            features,
            conventions: Conventions::default(),
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.inst.settings
    }

    /// The application enabled `ext`.
    pub fn app_enabled(&self, ext: &CStr) -> bool {
        self.app_extensions.contains(&ext)
    }

    /// The driver lists `ext`.
    pub fn driver_has(&self, ext: &CStr) -> bool {
        self.driver_extensions
            .iter()
            .any(|p| p.extension_name_as_c_str() == Ok(ext))
    }

    /// The application's own struct of type `T` in the create info's chain.
    pub fn app_struct<T: vk::TaggedStructure>(&self) -> Option<&T> {
        // SAFETY: a valid chain (`new`'s contract), in which a struct of `T`'s sType is a `T`.
        unsafe { find_in_chain::<T>(self.ci.p_next, T::STRUCTURE_TYPE) }
    }

    /// The application chained a struct of `s_type`.
    pub fn app_chains(&self, s_type: vk::StructureType) -> bool {
        // SAFETY: a valid chain (`new`'s contract); only the header is read.
        unsafe { find_in_chain::<vk::BaseInStructure<'_>>(self.ci.p_next, s_type) }.is_some()
    }

    /// The instance and the device are of Vulkan `version` or later: its core features and
    /// commands may be used.
    pub fn core_in(&self, version: u32) -> bool {
        self.inst.api_version >= version && self.device_properties().api_version >= version
    }

    /// `vkGetPhysicalDeviceFeatures2` is there to ask (a Vulkan 1.1 instance).
    pub fn can_query(&self) -> bool {
        self.inst.table.get_physical_device_features2.is_some()
            && self.inst.api_version >= vk::API_VERSION_1_1
    }

    /// The driver's `features` (left as given where it cannot be asked: all false).
    pub fn query<F: vk::TaggedStructure + vk::ExtendsPhysicalDeviceFeatures2>(
        &self,
        mut features: F,
    ) -> F {
        if let Some(get) = self
            .inst
            .table
            .get_physical_device_features2
            .filter(|_| self.can_query())
        {
            let mut query = vk::PhysicalDeviceFeatures2::default();
            link_in_front(&mut query, &mut features);
            // SAFETY: the next layer's command on a physical device of the instance
            // (`new`'s contract); `query` chains a struct that lives until it returns.
            unsafe { get(self.physical_device, &mut query) };
        }
        features
    }

    /// The driver's properties.
    pub fn device_properties(&self) -> vk::PhysicalDeviceProperties {
        let mut props = vk::PhysicalDeviceProperties::default();
        if let Some(get) = self.inst.table.get_physical_device_properties {
            // SAFETY: the next layer's command on a physical device of the instance (`new`'s
            // contract).
            unsafe { get(self.physical_device, &mut props) };
        }
        props
    }

    /// The driver's properties, and `chained` filled in where the query is there.
    pub fn properties<P: vk::TaggedStructure + vk::ExtendsPhysicalDeviceProperties2>(
        &self,
        mut chained: P,
    ) -> (vk::PhysicalDeviceProperties, P) {
        let mut props = vk::PhysicalDeviceProperties2::default();
        match self
            .inst
            .table
            .get_physical_device_properties2
            .filter(|_| self.inst.api_version >= vk::API_VERSION_1_1)
        {
            Some(get2) => {
                link_in_front(&mut props, &mut chained);
                // SAFETY: as in `query`.
                unsafe { get2(self.physical_device, &mut props) };
            }
            None => {
                if let Some(get) = self.inst.table.get_physical_device_properties {
                    // SAFETY: the next layer's command on a physical device of the instance.
                    unsafe { get(self.physical_device, &mut props.properties) };
                }
            }
        }
        (props.properties, chained)
    }

    /// Enables `ext` on the driver where the application did not.
    pub fn enable(&mut self, ext: &'static CStr) {
        if !self.app_enabled(ext) {
            self.extensions.push(ext.as_ptr());
        }
    }

    /// Chains `feature` in front of the create info the driver gets.
    pub fn add<F: AddedFeature + 'static>(&mut self, feature: F) {
        self.added.push(Box::new(feature));
    }

    /// A convention behind one feature of `ext`'s feature struct `F` (`on` reads it): the
    /// application's own struct wins, and the layer does not chain a second one; otherwise
    /// the layer enables the extension and chains `F` with the feature on (`with`) where the
    /// driver has it.
    pub fn adopt<F>(
        &mut self,
        ext: &'static CStr,
        on: impl Fn(&F) -> bool,
        with: impl FnOnce(F) -> F,
    ) -> Adopted
    where
        F: vk::TaggedStructure
            + vk::ExtendsPhysicalDeviceFeatures2
            + vk::ExtendsDeviceCreateInfo
            + Default
            + 'static,
    {
        let app = self.app_struct::<F>().map(&on);
        match app {
            Some(app_on) => Adopted {
                on: app_on && self.app_enabled(ext),
                ..Adopted::default()
            },
            None if self.driver_has(ext) && on(&self.query(F::default())) => {
                let behind_the_application = !self.app_enabled(ext);
                self.enable(ext);
                self.add(with(F::default()));
                Adopted {
                    on: true,
                    behind_the_application,
                }
            }
            None => Adopted::default(),
        }
    }
}

/// The extensions the driver below lists for `physical_device` (none where it cannot say).
///
/// # Safety
/// `physical_device` belongs to `inst`.
unsafe fn driver_extensions(
    inst: &InstanceData,
    physical_device: vk::PhysicalDevice,
) -> Vec<vk::ExtensionProperties> {
    let Some(enumerate) = inst.table.enumerate_device_extension_properties else {
        return Vec::new();
    };
    // SAFETY: the next layer's command with its two-call idiom; `props` holds `count`
    // elements.
    unsafe {
        let mut count = 0;
        if enumerate(
            physical_device,
            std::ptr::null(),
            &mut count,
            std::ptr::null_mut(),
        ) != vk::Result::SUCCESS
        {
            return Vec::new();
        }
        let mut props = vec![vk::ExtensionProperties::default(); count as usize];
        let result = enumerate(
            physical_device,
            std::ptr::null(),
            &mut count,
            props.as_mut_ptr(),
        );
        if result.as_raw() < 0 {
            return Vec::new();
        }
        props.truncate(count as usize);
        props
    }
}
