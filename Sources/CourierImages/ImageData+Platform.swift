#if canImport(UIKit)
    import UIKit

    extension ImageData {
        /// The image for UIKit, decoded at the screen's scale; `nil` when UIKit cannot decode it.
        public var uiImage: UIImage? { UIImage(data: data) }
    }
#endif

#if canImport(AppKit) && !targetEnvironment(macCatalyst)
    import AppKit

    extension ImageData {
        /// The image for AppKit; `nil` when AppKit cannot decode it.
        public var nsImage: NSImage? { NSImage(data: data) }
    }
#endif
